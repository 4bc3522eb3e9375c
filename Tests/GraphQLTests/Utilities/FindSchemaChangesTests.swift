import Testing

@testable import GraphQL

/// Two versions of a schema and the changes graphql-core 3.2.8 (graphql-js 16)
/// finds between them (`find_schema_changes`: breaking and dangerous together, in
/// its order), captured once and hard-coded here.
struct ChangeCase: Sendable, CustomTestStringConvertible {
    let name: String
    let old: String
    let new: String
    let expected: [SchemaChange]

    init(_ name: String, old: String, new: String, expected: [(SchemaChange.Kind, String)]) {
        self.name = name
        self.old = old
        self.new = new
        self.expected = expected.map { SchemaChange($0.0, $0.1) }
    }

    var testDescription: String { name }
}

@Suite struct FindSchemaChangesTests {
    static let cases: [ChangeCase] = [
        ChangeCase(
            "identical schemas have no changes",
            old: #"""
            type Query { a(x: Int = 1): [String!] }
            """#,
            new: #"""
            type Query { a(x: Int = 1): [String!] }
            """#,
            expected: []),
        ChangeCase(
            "types removed, including a standard scalar no longer used",
            old: #"""
            type Query { a: Int, t: Type1, u: Type2 }
            type Type1 { f: String }
            type Type2 { f: String }
            """#,
            new: #"""
            type Query { u: Type2 }
            type Type2 { f: String }
            """#,
            expected: [
                (.typeRemoved, "Standard scalar Int was removed because it is not referenced anymore."),
                (.typeRemoved, "Type1 was removed."),
                (.fieldRemoved, "Query.a was removed."),
                (.fieldRemoved, "Query.t was removed."),
            ]),
        ChangeCase(
            "types changing kind",
            old: #"""
            type Query { a: A, b: B, c: C, d: D, e: E, f(i: I): Int }
            type A { x: Int }
            interface B { x: Int }
            scalar C
            enum D { X }
            union E = A
            input I { x: Int }
            """#,
            new: #"""
            type Query { a: A, b: B, c: C, d: D, e: E, f(i: I): Int }
            interface A { x: Int }
            type B { x: Int }
            enum C { X }
            scalar D
            type E { x: Int }
            scalar I
            """#,
            expected: [
                (.typeChangedKind, "A changed from an Object type to an Interface type."),
                (.typeChangedKind, "B changed from an Interface type to an Object type."),
                (.typeChangedKind, "C changed from a Scalar type to an Enum type."),
                (.typeChangedKind, "D changed from an Enum type to a Scalar type."),
                (.typeChangedKind, "E changed from a Union type to an Object type."),
                (.typeChangedKind, "I changed from an Input type to a Scalar type."),
            ]),
        ChangeCase(
            "union members added and removed",
            old: #"""
            type Query { u: U }
            type A { x: Int }
            type B { x: Int }
            type C { x: Int }
            union U = A | B
            """#,
            new: #"""
            type Query { u: U }
            type A { x: Int }
            type B { x: Int }
            type C { x: Int }
            union U = A | C
            """#,
            expected: [
                (.typeAddedToUnion, "C was added to union type U."),
                (.typeRemovedFromUnion, "B was removed from union type U."),
            ]),
        ChangeCase(
            "enum values added and removed",
            old: #"""
            type Query { e: E }
            enum E { ONE TWO THREE }
            """#,
            new: #"""
            type Query { e: E }
            enum E { ONE FOUR THREE FIVE }
            """#,
            expected: [
                (.valueAddedToEnum, "FOUR was added to enum type E."),
                (.valueAddedToEnum, "FIVE was added to enum type E."),
                (.valueRemovedFromEnum, "TWO was removed from enum type E."),
            ]),
        ChangeCase(
            "input object fields added, removed and retyped",
            old: #"""
            type Query { f(i: I): Int }
            input I {
              keep: Int
              gone: Int
              tighten: Int
              loosen: Int!
              toList: Int
              fromList: [Int]
              rename: Int
              innerTighten: [Int]
              innerLoosen: [Int!]!
              nested: [[Int]]
            }
            """#,
            new: #"""
            type Query { f(i: I): Int }
            input I {
              keep: Int
              tighten: Int!
              loosen: Int
              toList: [Int]
              fromList: Int
              rename: String
              innerTighten: [Int!]
              innerLoosen: [Int]
              nested: [[Int!]]
              req: Int!
              opt: Int
              reqWithDefault: Int! = 3
            }
            """#,
            expected: [
                (.requiredInputFieldAdded, "A required field req on input type I was added."),
                (.optionalInputFieldAdded, "An optional field opt on input type I was added."),
                (.optionalInputFieldAdded, "An optional field reqWithDefault on input type I was added."),
                (.fieldRemoved, "I.gone was removed."),
                (.fieldChangedKind, "I.tighten changed type from Int to Int!."),
                (.fieldChangedKind, "I.toList changed type from Int to [Int]."),
                (.fieldChangedKind, "I.fromList changed type from [Int] to Int."),
                (.fieldChangedKind, "I.rename changed type from Int to String."),
                (.fieldChangedKind, "I.innerTighten changed type from [Int] to [Int!]."),
                (.fieldChangedKind, "I.nested changed type from [[Int]] to [[Int!]]."),
            ]),
        ChangeCase(
            "object field changes follow the output rules",
            old: #"""
            type Query {
              gone: Int
              tighten: Int
              loosen: Int!
              toList: Int
              fromList: [Int]
              rename: Int
              innerTighten: [Int]
              innerLoosen: [Int!]!
              toNonNullList: [Int]
              fromNonNullList: [Int]!
              nested: [[Int]!]
              nestedLoosen: [[Int!]]
              viewer: Viewer!
            }
            type Viewer { id: ID }
            """#,
            new: #"""
            type Query {
              tighten: Int!
              loosen: Int
              toList: [Int]
              fromList: Int
              rename: String
              innerTighten: [Int!]
              innerLoosen: [Int]
              toNonNullList: [Int]!
              fromNonNullList: [Int]
              nested: [[Int!]!]!
              nestedLoosen: [[Int]]
              viewer: Viewer
            }
            type Viewer { id: ID }
            """#,
            expected: [
                (.fieldRemoved, "Query.gone was removed."),
                (.fieldChangedKind, "Query.loosen changed type from Int! to Int."),
                (.fieldChangedKind, "Query.toList changed type from Int to [Int]."),
                (.fieldChangedKind, "Query.fromList changed type from [Int] to Int."),
                (.fieldChangedKind, "Query.rename changed type from Int to String."),
                (.fieldChangedKind, "Query.innerLoosen changed type from [Int!]! to [Int]."),
                (.fieldChangedKind, "Query.fromNonNullList changed type from [Int]! to [Int]."),
                (.fieldChangedKind, "Query.nestedLoosen changed type from [[Int!]] to [[Int]]."),
                (.fieldChangedKind, "Query.viewer changed type from Viewer! to Viewer."),
            ]),
        ChangeCase(
            "interface fields and implemented interfaces",
            old: #"""
            interface A { x: Int }
            interface B { x: Int }
            interface C implements A { x: Int, y: Int }
            type T implements A & B { x: Int }
            type Query { t: T, c: C }
            """#,
            new: #"""
            interface A { x: Int }
            interface B { x: Int }
            interface C implements B { x: Int! }
            type T implements B & A & C { x: Int!, y: Int }
            type Query { t: T, c: C }
            """#,
            expected: [
                (.fieldRemoved, "C.y was removed."),
                (.implementedInterfaceAdded, "B added to interfaces implemented by C."),
                (.implementedInterfaceRemoved, "C no longer implements interface A."),
                (.implementedInterfaceAdded, "C added to interfaces implemented by T."),
            ]),
        ChangeCase(
            "field arguments removed, retyped and added",
            old: #"""
            type Query {
              f(gone: Int, tighten: Int, loosen: Int!, toList: Int, rename: Int, innerTighten: [Int], keep: String): Int
            }
            """#,
            new: #"""
            type Query {
              f(tighten: Int!, loosen: Int, toList: [Int], rename: String, innerTighten: [Int!], keep: String, req: Int!, opt: Int, reqWithDefault: Int! = 1): Int
            }
            """#,
            expected: [
                (.argRemoved, "Query.f arg gone was removed."),
                (.argChangedKind, "Query.f arg tighten has changed type from Int to Int!."),
                (.argChangedKind, "Query.f arg toList has changed type from Int to [Int]."),
                (.argChangedKind, "Query.f arg rename has changed type from Int to String."),
                (.argChangedKind, "Query.f arg innerTighten has changed type from [Int] to [Int!]."),
                (.requiredArgAdded, "A required arg req on Query.f was added."),
                (.optionalArgAdded, "An optional arg opt on Query.f was added."),
                (.optionalArgAdded, "An optional arg reqWithDefault on Query.f was added."),
            ]),
        ChangeCase(
            "argument default values",
            old: #"""
            enum Color { RED GREEN }
            input Point { x: Int, y: Int = 2 }
            type Query {
              f(
                changed: Int = 1,
                removed: Int = 1,
                added: Int,
                same: Int = 1,
                float: Float = 1.0,
                list: [Int] = 1,
                enum: Color = RED,
                enumChanged: Color = RED,
                object: Point = {x: 1, y: 2},
                objectOrder: Point = {y: 3, x: 1},
                objectChanged: Point = {x: 1},
                toNull: Int = 3,
                string: String = "a",
                id: ID = "1"
              ): Int
            }
            """#,
            new: #"""
            enum Color { RED GREEN }
            input Point { x: Int, y: Int = 2 }
            type Query {
              f(
                changed: Int = 2,
                removed: Int,
                added: Int = 5,
                same: Int = 1,
                float: Float = 1,
                list: [Int] = [1],
                enum: Color = RED,
                enumChanged: Color = GREEN,
                object: Point = {x: 1},
                objectOrder: Point = {x: 1, y: 3},
                objectChanged: Point = {x: 1, y: 5},
                toNull: Int = null,
                string: String = "b",
                id: ID = 1
              ): Int
            }
            """#,
            expected: [
                (.argDefaultValueChange, "Query.f arg changed has changed defaultValue from 1 to 2."),
                (.argDefaultValueChange, "Query.f arg removed defaultValue was removed."),
                (.argDefaultValueChange, "Query.f arg enumChanged has changed defaultValue from RED to GREEN."),
                (.argDefaultValueChange, "Query.f arg objectChanged has changed defaultValue from {x: 1, y: 2} to {x: 1, y: 5}."),
                (.argDefaultValueChange, "Query.f arg toNull has changed defaultValue from 3 to null."),
                (.argDefaultValueChange, "Query.f arg string has changed defaultValue from \"a\" to \"b\"."),
            ]),
        ChangeCase(
            "argument type change wins over a default value change",
            old: #"""
            type Query { f(a: Int = 1): Int }
            """#,
            new: #"""
            type Query { f(a: String = "x"): Int }
            """#,
            expected: [
                (.argChangedKind, "Query.f arg a has changed type from Int to String."),
            ]),
        ChangeCase(
            "directive changes",
            old: #"""
            directive @gone on FIELD
            directive @args(keep: Int, removed: Int) on FIELD
            directive @rep repeatable on FIELD | QUERY
            directive @locs on FIELD | QUERY | MUTATION | ENUM_VALUE
            directive @req(a: Int) on FIELD
            type Query { a: Int }
            """#,
            new: #"""
            directive @args(keep: String, added: Int) on FIELD
            directive @rep on QUERY | FIELD
            directive @locs on QUERY
            directive @req(a: Int, b: Int!, c: Int! = 1, d: Int) on FIELD
            type Query { a: Int }
            """#,
            expected: [
                (.directiveRemoved, "gone was removed."),
                (.directiveArgRemoved, "removed was removed from args."),
                (.directiveRepeatableRemoved, "Repeatable flag was removed from rep."),
                (.directiveLocationRemoved, "FIELD was removed from locs."),
                (.directiveLocationRemoved, "MUTATION was removed from locs."),
                (.directiveLocationRemoved, "ENUM_VALUE was removed from locs."),
                (.requiredDirectiveArgAdded, "A required arg b on directive req was added."),
            ]),
        ChangeCase(
            "directive made repeatable or given new locations is safe",
            old: #"""
            directive @d on FIELD
            type Query { a: Int }
            """#,
            new: #"""
            directive @d repeatable on FIELD | QUERY
            type Query { a: Int }
            """#,
            expected: []),
        ChangeCase(
            "added types and fields are not reported",
            old: #"""
            type Query { a: Int }
            """#,
            new: #"""
            type Query { a: Int, b: B }
            type B { x: Int }
            """#,
            expected: []),
        ChangeCase(
            "root type renamed",
            old: #"""
            schema { query: Root }
            type Root { a: Int }
            """#,
            new: #"""
            type Query { a: Int }
            """#,
            expected: [
                (.typeRemoved, "Root was removed."),
            ]),
        ChangeCase(
            "many changes in graphql-js order",
            old: #"""
            directive @d(x: Int) on FIELD
            enum E { A B }
            union U = O1 | O2
            type O1 { x: Int }
            type O2 { x: Int }
            input In { a: Int, b: Int }
            interface Iface { x: Int }
            type Query implements Iface { x: Int, e: E, u: U, f(i: In, y: Int = 1): Int }
            """#,
            new: #"""
            enum E { A C }
            union U = O1 | O3
            type O1 { x: Int }
            type O3 { x: Int }
            input In { a: String, c: Int! }
            type Query { x: String, e: E, u: U, f(i: In, y: Int = 2, z: Int): Int }
            """#,
            expected: [
                (.typeRemoved, "O2 was removed."),
                (.typeRemoved, "Iface was removed."),
                (.valueAddedToEnum, "C was added to enum type E."),
                (.valueRemovedFromEnum, "B was removed from enum type E."),
                (.typeAddedToUnion, "O3 was added to union type U."),
                (.typeRemovedFromUnion, "O2 was removed from union type U."),
                (.requiredInputFieldAdded, "A required field c on input type In was added."),
                (.fieldRemoved, "In.b was removed."),
                (.fieldChangedKind, "In.a changed type from Int to String."),
                (.fieldChangedKind, "Query.x changed type from Int to String."),
                (.argDefaultValueChange, "Query.f arg y has changed defaultValue from 1 to 2."),
                (.optionalArgAdded, "An optional arg z on Query.f was added."),
                (.implementedInterfaceRemoved, "Query no longer implements interface Iface."),
                (.directiveRemoved, "d was removed."),
            ]),

    ]

    @Test(arguments: cases)
    func findsWhatGraphQLJSFinds(_ testCase: ChangeCase) throws {
        let changes = findSchemaChanges(
            from: try GraphQLSchema.build(sdl: testCase.old), to: try GraphQLSchema.build(sdl: testCase.new))
        #expect(Set(changes) == Set(testCase.expected))
        #expect(changes == testCase.expected)
    }

    /// `findBreakingChanges` and `findDangerousChanges` split the same list, keeping its order.
    @Test(arguments: cases)
    func breakingAndDangerousSplitTheChanges(_ testCase: ChangeCase) throws {
        let old = try GraphQLSchema.build(sdl: testCase.old)
        let new = try GraphQLSchema.build(sdl: testCase.new)
        #expect(findBreakingChanges(from: old, to: new) == testCase.expected.filter(\.isBreaking))
        #expect(findDangerousChanges(from: old, to: new) == testCase.expected.filter { !$0.isBreaking })
    }

    /// Every kind of change is exercised by the table above.
    @Test func tableCoversEveryKind() {
        let covered = Set(Self.cases.flatMap { $0.expected.map(\.kind) })
        #expect(covered == Set(SchemaChange.Kind.allCases))
    }

    /// graphql-js's split: the BreakingChangeType cases are breaking, the
    /// DangerousChangeType cases are not.
    @Test(arguments: SchemaChange.Kind.allCases)
    func kindIsBreakingAsInGraphQLJS(_ kind: SchemaChange.Kind) {
        let dangerous: Set<SchemaChange.Kind> = [
            .valueAddedToEnum, .typeAddedToUnion, .optionalInputFieldAdded, .optionalArgAdded,
            .implementedInterfaceAdded, .argDefaultValueChange,
        ]
        #expect(kind.isBreaking == !dangerous.contains(kind))
        #expect(SchemaChange(kind, "x").isBreaking == kind.isBreaking)
    }

    /// The engine tests' golden schema: large, with every kind of type and extensions.
    @Test func goldenSchemaHasNoChangesAgainstItself() throws {
        let sdl = try fixture("golden-schema.graphql")
        let schema = try GraphQLSchema.build(sdl: sdl)
        #expect(findSchemaChanges(from: schema, to: try GraphQLSchema.build(sdl: sdl)).isEmpty)
        let printed = try GraphQLSchema.build(sdl: fixture("golden-schema.printed.graphql"))
        #expect(findSchemaChanges(from: schema, to: printed).isEmpty)
    }

    /// Making `Query.catalogue` nullable breaks clients that rely on it being non-null.
    @Test func nullableFieldIsOneBreakingChange() throws {
        let sdl = try fixture("golden-schema.graphql")
        let declaration = "  catalogue: Catalogue!\n"
        #expect(sdl.contains(declaration))
        let edited = sdl.replacing(declaration, with: "  catalogue: Catalogue\n")
        let changes = findSchemaChanges(from: try GraphQLSchema.build(sdl: sdl), to: try GraphQLSchema.build(sdl: edited))
        #expect(changes == [SchemaChange(.fieldChangedKind, "Query.catalogue changed type from Catalogue! to Catalogue.")])
        #expect(changes.allSatisfy { $0.isBreaking })
    }

    /// The reverse, tightening an output type, is safe.
    @Test func nonNullFieldIsSafe() throws {
        let sdl = try fixture("golden-schema.graphql")
        let loosened = sdl.replacing("  catalogue: Catalogue!\n", with: "  catalogue: Catalogue\n")
        #expect(loosened != sdl)
        let old = try GraphQLSchema.build(sdl: loosened)
        let new = try GraphQLSchema.build(sdl: sdl)
        #expect(findSchemaChanges(from: old, to: new).isEmpty)
    }

    @Test(arguments: [
        ("a", "b", -1), ("b", "a", 1), ("a", "a", 0), ("a", "ab", -1),
        ("a2", "a10", -1), ("a10", "a2", 1), ("a01", "a1", -1), ("a1", "a01", 1), ("a0", "a00", -1),
        ("Z", "a", -1), ("x9y", "x10y", -1),
    ])
    func naturalCompareAsGraphQLJS(_ a: String, _ b: String, _ expected: Int) {
        #expect(SchemaDiff.naturalCompare(a, b).signum() == expected)
    }
}
