import Foundation
import JSON
import Testing

@testable import GraphQL

/// One SDL document and what graphql-core 3.2.8 (graphql-js 16) prints for it:
/// `print_schema(build_schema(sdl))`, captured once and hard-coded here.
struct PrintCase: Sendable, CustomTestStringConvertible {
    let name: String
    let sdl: String
    let expected: String

    init(_ name: String, sdl: String, expected: String) {
        self.name = name
        self.sdl = sdl
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite struct PrintSchemaTests {
    static let cases: [PrintCase] = [
        PrintCase(
            "scalars, lists and non-null",
            sdl: #"""
            type Query {
              a: Int
              b: Float!
              c: [String]
              d: [Boolean!]!
              e: [[ID!]]
            }
            """#,
            expected: #"""
            type Query {
              a: Int
              b: Float!
              c: [String]
              d: [Boolean!]!
              e: [[ID!]]
            }
            """#),
        PrintCase(
            "type order follows references depth first",
            sdl: #"""
            type Query { b: B, a: A }
            type A { c: C }
            type B { a: A, e: E }
            type C { x: Int }
            enum E { ONE TWO }
            """#,
            expected: #"""
            type Query {
              b: B
              a: A
            }

            type A {
              c: C
            }

            type B {
              a: A
              e: E
            }

            type C {
              x: Int
            }

            enum E {
              ONE
              TWO
            }
            """#),
        PrintCase(
            "custom root type names print a schema definition",
            sdl: #"""
            schema { query: Root mutation: Change }
            type Root { a: Int }
            type Change { b: Int }
            """#,
            expected: #"""
            schema {
              query: Root
              mutation: Change
            }

            type Root {
              a: Int
            }

            type Change {
              b: Int
            }
            """#),
        PrintCase(
            "partly common root names still print a schema definition",
            sdl: #"""
            schema { query: Query mutation: Mut subscription: Subscription }
            type Query { a: Int }
            type Mut { b: Int }
            type Subscription { c: Int }
            """#,
            expected: #"""
            schema {
              query: Query
              mutation: Mut
              subscription: Subscription
            }

            type Query {
              a: Int
            }

            type Mut {
              b: Int
            }

            type Subscription {
              c: Int
            }
            """#),
        PrintCase(
            "common root names print no schema definition",
            sdl: #"""
            schema { query: Query mutation: Mutation subscription: Subscription }
            type Query { a: Int }
            type Mutation { b: Int }
            type Subscription { c: Int }
            """#,
            expected: #"""
            type Query {
              a: Int
            }

            type Mutation {
              b: Int
            }

            type Subscription {
              c: Int
            }
            """#),
        PrintCase(
            "schema description forces the schema definition",
            sdl: #"""
            """The whole API."""
            schema { query: Query }
            type Query { a: Int }
            """#,
            expected: #"""
            """The whole API."""
            schema {
              query: Query
            }

            type Query {
              a: Int
            }
            """#),
        PrintCase(
            "descriptions: short, long, multi-line and on blocks",
            sdl: #"""
            """Short."""
            type Query {
              "one line"
              a: Int
              """
              A description that is much longer than seventy characters and so is printed on lines of its own.
              """
              b: Int
              """
              First line.
                Indented second line.
              """
              c: Int
              d: Int
              "after undescribed"
              e: Int
            }
            """#,
            expected: #"""
            """Short."""
            type Query {
              """one line"""
              a: Int

              """
              A description that is much longer than seventy characters and so is printed on lines of its own.
              """
              b: Int

              """
              First line.
                Indented second line.
              """
              c: Int
              d: Int

              """after undescribed"""
              e: Int
            }
            """#),
        PrintCase(
            "descriptions that cannot be block strings are quoted",
            sdl: #"""
            type Query {
              "\nstarts with a new line"
              a: Int
              "has a \r carriage return"
              b: Int
              "control \u0001 character"
              c: Int
              "   indented\n   everywhere"
              d: Int
              "ends with a blank line\n"
              e: Int
              ""
              f: Int
            }
            """#,
            expected: #"""
            type Query {
              "\nstarts with a new line"
              a: Int

              "has a \r carriage return"
              b: Int

              "control \u0001 character"
              c: Int

              "   indented\n   everywhere"
              d: Int

              "ends with a blank line\n"
              e: Int

              """"""
              f: Int
            }
            """#),
        PrintCase(
            "descriptions with quotes, backslashes and leading spaces",
            sdl: #"""
            type Query {
              "ends with a quote\""
              a: Int
              "has \"\"\" triple quotes"
              b: Int
              "ends with a backslash\\"
              c: Int
              "  leading spaces"
              d: Int
              "line one\n  indented line two"
              e: Int
              "unicode: \u00e9 \u2603"
              f: Int
              "ends with triple quotes \"\"\""
              g: Int
            }
            """#,
            expected: #"""
            type Query {
              """
              ends with a quote"
              """
              a: Int

              """has \""" triple quotes"""
              b: Int

              """
              ends with a backslash\
              """
              c: Int

              """  leading spaces"""
              d: Int

              """
              line one
                indented line two
              """
              e: Int

              """unicode: é ☃"""
              f: Int

              """
              ends with triple quotes \"""
              """
              g: Int
            }
            """#),
        PrintCase(
            "deprecation with default and custom reasons",
            sdl: #"""
            type Query {
              a: Int @deprecated
              b: Int @deprecated(reason: "No longer supported")
              c: Int @deprecated(reason: "Use `d`. It says \"hi\".")
              d(old: Int @deprecated(reason: "gone"), new: Int): Int
            }
            enum E { A B @deprecated C @deprecated(reason: "Use A.\nReally.") }
            input I { x: Int @deprecated(reason: "old"), y: Int }
            type T { e: E, f(i: I): Int }
            """#,
            expected: #"""
            type Query {
              a: Int @deprecated
              b: Int @deprecated
              c: Int @deprecated(reason: "Use `d`. It says \"hi\".")
              d(old: Int @deprecated(reason: "gone"), new: Int): Int
            }

            enum E {
              A
              B @deprecated
              C @deprecated(reason: "Use A.\nReally.")
            }

            input I {
              x: Int @deprecated(reason: "old")
              y: Int
            }

            type T {
              e: E
              f(i: I): Int
            }
            """#),
        PrintCase(
            "specifiedBy and oneOf",
            sdl: #"""
            scalar URL @specifiedBy(url: "https://tools.ietf.org/html/rfc3986")
            """A date."""
            scalar Date
            input Choice @oneOf { a: Int, b: String }
            type Query { u(c: Choice): URL, d: Date }
            """#,
            expected: #"""
            scalar URL @specifiedBy(url: "https://tools.ietf.org/html/rfc3986")

            """A date."""
            scalar Date

            input Choice @oneOf {
              a: Int
              b: String
            }

            type Query {
              u(c: Choice): URL
              d: Date
            }
            """#),
        PrintCase(
            "directive definitions",
            sdl: #"""
            directive @a on FIELD
            directive @b(x: Int = 1, y: [String!]!) repeatable on FIELD_DEFINITION | OBJECT | INTERFACE
            """Described."""
            directive @c(
              """The x."""
              x: Int
              y: String = "why"
            ) on QUERY | MUTATION | SUBSCRIPTION | FRAGMENT_DEFINITION | VARIABLE_DEFINITION | SCHEMA
            directive @d(input: DirInput) on ENUM_VALUE | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | INPUT_OBJECT | UNION | ENUM | SCALAR | FRAGMENT_SPREAD | INLINE_FRAGMENT
            input DirInput { z: Int }
            type Query { a: Int }
            """#,
            expected: #"""
            directive @a on FIELD

            directive @b(x: Int = 1, y: [String!]!) repeatable on FIELD_DEFINITION | OBJECT | INTERFACE

            """Described."""
            directive @c(
              """The x."""
              x: Int
              y: String = "why"
            ) on QUERY | MUTATION | SUBSCRIPTION | FRAGMENT_DEFINITION | VARIABLE_DEFINITION | SCHEMA

            directive @d(input: DirInput) on ENUM_VALUE | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | INPUT_OBJECT | UNION | ENUM | SCALAR | FRAGMENT_SPREAD | INLINE_FRAGMENT

            input DirInput {
              z: Int
            }

            type Query {
              a: Int
            }
            """#),
        PrintCase(
            "field arguments with descriptions go on their own lines",
            sdl: #"""
            type Query {
              f(
                "first"
                a: Int
                b: String = "x"
                """
                A long argument description that goes past seventy characters in length.
                """
                c: Boolean
              ): Int
              g(a: Int, b: Int): Int
              h("only one" a: Int): Int
            }
            """#,
            expected: #"""
            type Query {
              f(
                """first"""
                a: Int
                b: String = "x"

                """
                A long argument description that goes past seventy characters in length.
                """
                c: Boolean
              ): Int
              g(a: Int, b: Int): Int
              h(
                """only one"""
                a: Int
              ): Int
            }
            """#),
        PrintCase(
            "scalar default values are canonical",
            sdl: #"""
            type Query {
              f(
                i: Int = 1,
                neg: Int = -5,
                fl: Float = 1.0,
                fl2: Float = 1.5,
                fl3: Float = 2,
                fl4: Float = 1e3,
                fl5: Float = -0.25,
                s: String = "a \"quoted\" \\ string\n\ttab",
                bs: String = """block string""",
                u: String = "\u00e9",
                b: Boolean = true,
                b2: Boolean = false,
                n: Int = null,
                id1: ID = 1,
                id2: ID = "abc",
                id3: ID = "123",
                id4: ID = "-0",
                id5: ID = "007",
                id6: ID = "123456789012345678901234567890",
                id7: ID = -12,
                nn: Int! = 3
              ): Int
            }
            """#,
            expected: #"""
            type Query {
              f(i: Int = 1, neg: Int = -5, fl: Float = 1, fl2: Float = 1.5, fl3: Float = 2, fl4: Float = 1000, fl5: Float = -0.25, s: String = "a \"quoted\" \\ string\n\ttab", bs: String = "block string", u: String = "é", b: Boolean = true, b2: Boolean = false, n: Int = null, id1: ID = 1, id2: ID = "abc", id3: ID = 123, id4: ID = -0, id5: ID = "007", id6: ID = 123456789012345678901234567890, id7: ID = -12, nn: Int! = 3): Int
            }
            """#),
        PrintCase(
            "list, enum and input object default values",
            sdl: #"""
            enum Color { RED GREEN BLUE }
            input Point { y: Int = 7, x: Int, z: Color = RED, w: [Int] }
            type Query {
              f(
                l: [Int] = 1,
                l2: [Int] = [1, 2],
                l3: [[Int]] = [[1], 2],
                l4: [Int] = null,
                l5: [Int!]! = [],
                c: Color = GREEN,
                cl: [Color] = [RED, BLUE],
                p: Point = {x: 1},
                p2: Point = {w: 3, x: 2, z: BLUE},
                p3: Point = {},
                pl: [Point] = [{x: 1}, {y: 2}]
              ): Int
            }
            """#,
            expected: #"""
            enum Color {
              RED
              GREEN
              BLUE
            }

            input Point {
              y: Int = 7
              x: Int
              z: Color = RED
              w: [Int]
            }

            type Query {
              f(l: [Int] = [1], l2: [Int] = [1, 2], l3: [[Int]] = [[1], [2]], l4: [Int] = null, l5: [Int!]! = [], c: Color = GREEN, cl: [Color] = [RED, BLUE], p: Point = {y: 7, x: 1, z: RED}, p2: Point = {y: 7, x: 2, z: BLUE, w: [3]}, p3: Point = {y: 7, z: RED}, pl: [Point] = [{y: 7, x: 1, z: RED}, {y: 2, z: RED}]): Int
            }
            """#),
        PrintCase(
            "custom scalar default values",
            sdl: #"""
            scalar JSON
            type Query {
              f(a: JSON = "text", b: JSON = 5, c: JSON = 1.5, d: JSON = SOME_ENUM, e: JSON = true, f: JSON = null): Int
            }
            """#,
            expected: #"""
            scalar JSON

            type Query {
              f(a: JSON = "text", b: JSON = 5, c: JSON = 1.5, d: JSON = "SOME_ENUM", e: JSON = true, f: JSON = null): Int
            }
            """#),
        PrintCase(
            "default values that do not coerce are not printed",
            sdl: #"""
            enum Color { RED }
            type Query { f(a: Int = "x", b: Color = BLUE, c: Int = 1.5, d: [Int] = ["a"], e: Int! = null): Int }
            """#,
            expected: #"""
            enum Color {
              RED
            }

            type Query {
              f(a: Int, b: Color, c: Int, d: [Int], e: Int!): Int
            }
            """#),
        PrintCase(
            "interfaces, unions, enums and input objects",
            sdl: #"""
            interface Node { id: ID! }
            interface Resource implements Node { id: ID! url: String }
            type Image implements Resource & Node { id: ID! url: String width: Int }
            type Video implements Node & Resource { id: ID! url: String length: Float }
            union Media = Image | Video
            """Sizes."""
            enum Size {
              "Small one."
              SMALL
              MEDIUM
              "Large one."
              LARGE
            }
            """Filter."""
            input Filter {
              "The size."
              size: Size = MEDIUM
              tags: [String!]
              nested: Filter
            }
            type Query { node(id: ID!): Node, media(filter: Filter): [Media] }
            """#,
            expected: #"""
            interface Node {
              id: ID!
            }

            interface Resource implements Node {
              id: ID!
              url: String
            }

            type Image implements Resource & Node {
              id: ID!
              url: String
              width: Int
            }

            type Video implements Node & Resource {
              id: ID!
              url: String
              length: Float
            }

            union Media = Image | Video

            """Sizes."""
            enum Size {
              """Small one."""
              SMALL
              MEDIUM

              """Large one."""
              LARGE
            }

            """Filter."""
            input Filter {
              """The size."""
              size: Size = MEDIUM
              tags: [String!]
              nested: Filter
            }

            type Query {
              node(id: ID!): Node
              media(filter: Filter): [Media]
            }
            """#),
        PrintCase(
            "extensions are merged",
            sdl: #"""
            type Query { a: Int }
            extend type Query { b: String }
            interface I { x: Int }
            type T { x: Int }
            extend type T implements I
            union U = T
            type V { x: Int }
            extend union U = V
            enum E { A }
            extend enum E { B }
            input In { a: Int }
            extend input In { b: Int }
            type Q2 { u: U, e: E, i(in: In): Int }
            """#,
            expected: #"""
            type Query {
              a: Int
              b: String
            }

            interface I {
              x: Int
            }

            type T implements I {
              x: Int
            }

            union U = T | V

            type V {
              x: Int
            }

            enum E {
              A
              B
            }

            input In {
              a: Int
              b: Int
            }

            type Q2 {
              u: U
              e: E
              i(in: In): Int
            }
            """#),
        PrintCase(
            "types only reachable from directives or roots come later",
            sdl: #"""
            directive @dir(arg: DirArg) on FIELD
            input DirArg { a: Int }
            type Mutation { m: M }
            type M { x: Int }
            type Query { a: Int }
            """#,
            expected: #"""
            directive @dir(arg: DirArg) on FIELD

            input DirArg {
              a: Int
            }

            type Mutation {
              m: M
            }

            type M {
              x: Int
            }

            type Query {
              a: Int
            }
            """#),
        PrintCase(
            "interface fields with arguments",
            sdl: #"""
            interface Searchable {
              search(
                "The term."
                term: String!
                limit: Int = 10
              ): [String!]! @deprecated(reason: "Use find.")
            }
            type Query implements Searchable {
              search(term: String!, limit: Int = 10): [String!]! @deprecated(reason: "Use find.")
            }
            """#,
            expected: #"""
            interface Searchable {
              search(
                """The term."""
                term: String!
                limit: Int = 10
              ): [String!]! @deprecated(reason: "Use find.")
            }

            type Query implements Searchable {
              search(term: String!, limit: Int = 10): [String!]! @deprecated(reason: "Use find.")
            }
            """#),

    ]

    @Test(arguments: cases)
    func printsAsGraphQLJS(_ testCase: PrintCase) throws {
        let schema = try GraphQLSchema.build(sdl: testCase.sdl)
        #expect(printSchema(schema) == testCase.expected)
    }

    /// The printed form is itself SDL that builds the same schema: printing it again
    /// changes nothing.
    @Test(arguments: cases)
    func printedSchemaReprintsUnchanged(_ testCase: PrintCase) throws {
        let printed = printSchema(try GraphQLSchema.build(sdl: testCase.sdl))
        #expect(printSchema(try GraphQLSchema.build(sdl: printed)) == printed)
    }

    /// The engine tests' golden schema, with its extensions, applied directives and
    /// defaults that coercion expands, prints as graphql-core prints it
    /// (Fixtures/golden-schema.printed.graphql, written by conformance/golden.py).
    @Test func goldenSchemaPrintsAsGraphQLCore() throws {
        let printed = printSchema(try GraphQLSchema.build(sdl: fixture("golden-schema.graphql")))
        #expect(printed + "\n" == (try fixture("golden-schema.printed.graphql")))
        #expect(printSchema(try GraphQLSchema.build(sdl: printed)) == printed)
    }

    @Test func builtInsAndIntrospectionTypesAreLeftOut() throws {
        let schema = try GraphQLSchema.build(sdl: "type Query { a: Int, b: String, c: Float, d: Boolean, e: ID }")
        let printed = printSchema(schema)
        #expect(printed == "type Query {\n  a: Int\n  b: String\n  c: Float\n  d: Boolean\n  e: ID\n}")
        #expect(!printed.contains("__"))
        #expect(!printed.contains("directive"))
    }
}
