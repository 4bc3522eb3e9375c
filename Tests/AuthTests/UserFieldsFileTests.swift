import Auth
import AuthGraphQL
import Foundation
import GraphQL
import Testing
import TestSupport

/// Reading `GATEHOUSE_USER_FIELDS`: the contract's example, the served schema it makes, and
/// every start-up error with its `file:line:column: message`.
@Suite struct UserFieldsFileTests {
    /// The contract's example file, as written there (limit directives in their short form).
    static let contractExample = """
        enum Plan { FREE PRO TEAM }

        extend type User {
          "Shown on the profile page."
          bio: String @maxLength(500)
          birthday: Date
          newsletter: Boolean
          favoriteColors: [String!] @maxItems(10)
          plan: Plan @serverOnly @claim
          supportNotes: String @hidden
          preferences: Object @maxBytes(4096)
        }
        """

    static func read(_ sdl: String) throws -> UserFieldsFile {
        try UserFieldsFile(sdl: sdl, sourceName: "fields.graphql", base: try AuthGraphQL.schema())
    }

    /// The problems of `sdl`, one line each.
    static func problems(_ sdl: String) throws -> [String] {
        do {
            _ = try read(sdl)
            return []
        } catch let problems as UserFieldsFile.Problems {
            return problems.lines
        }
    }

    @Test func theContractExampleDeclaresItsFieldsWithTheirRules() throws {
        let file = try Self.read(Self.contractExample)
        let fields = file.fields
        #expect(fields.declared.map(\.name) == ["bio", "birthday", "newsletter", "favoriteColors", "plan", "supportNotes", "preferences"])
        #expect(fields.field("bio") == UserFields.Field(name: "bio", type: .string, maxLength: 500))
        #expect(fields.field("birthday")?.type == .date)
        #expect(fields.field("newsletter")?.type == .boolean)
        #expect(fields.field("favoriteColors") == UserFields.Field(name: "favoriteColors", type: .string, isList: true, maxItems: 10))
        #expect(fields.field("plan") == UserFields.Field(
            name: "plan", type: .enumeration(name: "Plan", values: ["FREE", "PRO", "TEAM"]), access: .serverOnly, isClaim: true))
        #expect(fields.field("supportNotes")?.access == .hidden)
        #expect(fields.field("preferences") == UserFields.Field(name: "preferences", type: .object, maxBytes: 4096))
        #expect(fields.claims == ["plan"])
        // Defaults where the file names no limit.
        #expect(fields.field("supportNotes")?.maxLength == 1024)
        #expect(fields.field("favoriteColors")?.maxLength == 1024)
    }

    @Test func theServedSchemaHasTheFieldsOnUserAndTheThreeInputsWithTheirDescriptions() throws {
        let schema = try AuthGraphQL.schema(userFields: try Self.read(Self.contractExample))
        let printed = printSchema(schema)
        for type in ["User"] + UserFieldsFile.inputTypes {
            guard let named = schema.type(type) else {
                Issue.record("no \(type)")
                continue
            }
            let fields: [(name: String, description: String?, type: String)] = switch named {
            case .object(let object): object.fields.map { ($0.name, $0.description, $0.type.description) }
            case .inputObject(let input): input.fields.map { ($0.name, $0.description, $0.type.description) }
            default: []
            }
            let bio = fields.first { $0.name == "bio" }
            #expect(bio?.description == "Shown on the profile page.", "\(type)")
            #expect(fields.first { $0.name == "favoriteColors" }?.type == "[String!]", "\(type)")
            #expect(fields.first { $0.name == "plan" }?.type == "Plan", "\(type)")
            #expect(fields.first { $0.name == "preferences" }?.type == "Object", "\(type)")
        }
        #expect(printed.contains("enum Plan {\n  FREE\n  PRO\n  TEAM\n}"))
        // Gatehouse's directives are declared whatever the file says.
        for directive in ["@maxLength(n: Int!)", "@maxItems(n: Int!)", "@maxBytes(n: Int!)", "@serverOnly", "@hidden", "@claim"] {
            #expect(printed.contains("directive \(directive) on FIELD_DEFINITION"), "\(directive)")
        }
        #expect(printSchema(try AuthGraphQL.schema()).contains("directive @claim on FIELD_DEFINITION"))
    }

    @Test func theNamedArgumentFormIsTheSame() throws {
        let short = try Self.read("extend type User { bio: String @maxLength(500) tags: [String!] @maxItems( 3 ) }")
        let named = try Self.read("extend type User { bio: String @maxLength(n: 500) tags: [String!] @maxItems(n: 3) }")
        #expect(short.fields == named.fields)
        #expect(short.extensionSDL == named.extensionSDL)
    }

    /// The short form is rewritten only where it is a directive: descriptions and comments keep
    /// their text, and a problem after a rewritten directive is reported at the file's column.
    @Test func theShortFormLeavesStringsAndCommentsAlone() throws {
        let file = try Self.read("""
            # @maxLength(3) in a comment
            extend type User {
              "Say @maxLength(3) here"
              bio: String @maxLength(8)
              \"""Or @maxItems(2) \\\""" here\"""
              tags: [String!]
            }
            """)
        #expect(file.extensionSDL.contains("\"Say @maxLength(3) here\""), "\(file.extensionSDL)")
        #expect(file.extensionSDL.contains("Or @maxItems(2) \\\"\"\" here"), "\(file.extensionSDL)")
        #expect(file.fields.field("bio")?.maxLength == 8)
        #expect(try Self.problems("extend type User {\n  bio: String @maxLength(8) @maxLength(9) @nope\n}") == [
            "fields.graphql:2:29: The directive \"@maxLength\" can only be used once at this location.",
            "fields.graphql:2:43: Unknown directive \"@nope\".",
        ])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let sdl: String
        let problems: [String]
        var testDescription: String { name }
        init(_ name: String, _ sdl: String, _ problems: [String]) {
            self.name = name
            self.sdl = sdl
            self.problems = problems.map { "fields.graphql:" + $0 }
        }
    }

    static let cases: [Case] = [
        Case("parse error", "extend type User {\n  bio: String @maxLength(500\n}", ["2:26: Syntax Error: Expected Name, found Int \"500\"."]),
        Case("parse error, unclosed", "extend type User {\n  bio: String", ["2:14: Syntax Error: Expected Name, found <EOF>."]),
        Case("unknown type", "extend type User { bio: Strin }", ["1:25: Unknown type \"Strin\"."]),
        Case("unknown type, another case", "extend type User { bio: string }", ["1:25: Unknown type \"string\". Did you mean \"String\"?"]),
        Case("a type of the schema that is no field type", "extend type User { bio: ID }",
             ["1:25: Field \"bio\" cannot be of type ID: use String, Int, Float, Boolean, Date, Object, an enum of this file, or a list of one of these."]),
        Case("unknown directive", "extend type User { bio: String @nope }", ["1:32: Unknown directive \"@nope\"."]),
        Case("a directive of GraphQL where it has no meaning", "extend type User { bio: String @specifiedBy(url: \"x\") }",
             ["1:32: Directive \"@specifiedBy\" may not be used on a user field."]),
        Case("bad name: capital", "extend type User { Bio: String }",
             ["1:20: Field name \"Bio\" must start with a lowercase letter and have only letters and digits (at most 64 characters)."]),
        Case("bad name: underscore", "extend type User { favorite_color: String }",
             ["1:20: Field name \"favorite_color\" must start with a lowercase letter and have only letters and digits (at most 64 characters)."]),
        Case("bad name: 65 characters", "extend type User { a\(String(repeating: "b", count: 64)): String }",
             ["1:20: Field name \"a\(String(repeating: "b", count: 64))\" must start with a lowercase letter and have only letters and digits (at most 64 characters)."]),
        Case("clash with a built-in field of User", "extend type User { username: String }",
             ["1:20: Field \"username\" is a built-in field of User; choose another name."]),
        Case("clash with displayName", "extend type User { displayName: String }",
             ["1:20: Field \"displayName\" is a built-in field of User; choose another name."]),
        Case("clash with an input's built-in field", "extend type User { password: String }",
             ["1:20: Field \"password\" is a built-in field of CreateUserFieldsInput; choose another name."]),
        Case("clash with a registered claim", "extend type User { sub: String }",
             ["1:20: Field name \"sub\" is a registered JWT claim name; choose another name."]),
        Case("clash with the claim name", "extend type User { name: String picture: String }", [
            "1:20: Field name \"name\" is a registered JWT claim name; choose another name.",
            "1:33: Field name \"picture\" is a registered JWT claim name; choose another name.",
        ]),
        Case("twice", "extend type User { bio: String }\nextend type User { bio: Int }",
             ["2:20: Field \"User.bio\" can only be defined once."]),
        Case("non-null", "extend type User { bio: String! }",
             ["1:25: Field \"bio\" must be nullable (users made before it have no value): write String, not String!."]),
        Case("list of nullable items", "extend type User { tags: [String] }",
             ["1:26: The items of list field \"tags\" must be non-null: write [String!]."]),
        Case("list of lists", "extend type User { tags: [[String!]!] }", ["1:26: Field \"tags\" cannot be a list of lists."]),
        Case("arguments", "extend type User { bio(short: Boolean): String }", ["1:24: Field \"bio\" cannot take arguments."]),
        Case("@maxLength on an Int", "extend type User { age: Int @maxLength(3) }",
             ["1:29: @maxLength applies to String fields (and lists of String); \"age\" is Int."]),
        Case("@maxItems on a String", "extend type User { bio: String @maxItems(3) }",
             ["1:32: @maxItems applies to list fields; \"bio\" is String."]),
        Case("@maxBytes on a String", "extend type User { bio: String @maxBytes(30) }",
             ["1:32: @maxBytes applies to Object fields (and lists of Object); \"bio\" is String."]),
        Case("@maxLength of 0", "extend type User { bio: String @maxLength(0) }",
             ["1:43: @maxLength(n:) needs a whole number from 1 to 65536, not 0."]),
        Case("@maxLength past 64 KiB", "extend type User { bio: String @maxLength(n: 65537) }",
             ["1:46: @maxLength(n:) needs a whole number from 1 to 65536, not 65537."]),
        Case("@maxLength without n", "extend type User { bio: String @maxLength }",
             ["1:32: @maxLength(n:) needs a whole number from 1 to 65536."]),
        Case("@maxItems with a string", "extend type User { tags: [String!] @maxItems(n: \"3\") }",
             ["1:49: @maxItems(n:) needs a whole number from 1 to 10000, not \"3\"."]),
        Case("@maxBytes with another argument", "extend type User { prefs: Object @maxBytes(size: 30) }",
             ["1:44: Unknown argument \"size\" on directive \"@maxBytes\"; @maxBytes(n:) needs a whole number from 2 to 65536."]),
        Case("@claim with an argument", "extend type User { plan: String @claim(name: \"p\") }",
             ["1:40: Directive \"@claim\" takes no arguments."]),
        Case("@serverOnly and @hidden", "extend type User { notes: String @serverOnly @hidden }",
             ["1:20: Field \"notes\" cannot be both @serverOnly and @hidden: @hidden alone keeps the master key its only reader and writer."]),
        Case("@hidden @claim", "extend type User { notes: String @hidden @claim }",
             ["1:20: Field \"notes\" cannot be both @hidden and a @claim: an access token is read by its holder."]),
        Case("a type definition", "type Profile { bio: String }",
             ["1:1: A fields file declares enums and \"extend type User { … }\" only; found a type definition \"Profile\"."]),
        Case("type User", "type User { bio: String }",
             ["1:6: User is defined by Gatehouse: declare its fields with \"extend type User { … }\"."]),
        Case("another type extended", "extend type Viewer { bio: String }",
             ["1:1: A fields file declares enums and \"extend type User { … }\" only; found an extension of \"Viewer\"."]),
        Case("a directive definition", "directive @mine on FIELD_DEFINITION",
             ["1:1: A fields file declares enums and \"extend type User { … }\" only; found a directive definition \"@mine\"."]),
        Case("an enum named like a type of the schema", "enum Viewer { A }",
             ["1:6: Type \"Viewer\" is already defined by Gatehouse; give the enum another name."]),
        Case("an enum twice", "enum Plan { A }\nenum Plan { B }", ["2:6: There can be only one type named \"Plan\"."]),
        Case("an enum value twice", "enum Plan { A B A }", ["1:17: Enum value \"Plan.A\" can only be defined once."]),
        Case("a directive on an enum", "enum Plan @claim { A }", ["1:11: Directive \"@claim\" may not be used on an enum."]),
        Case("interfaces added to User", "extend type User implements Thing { bio: String }",
             ["1:29: The fields file cannot add interfaces to User."]),
    ]

    @Test(arguments: cases) func startUpErrors(_ test: Case) throws {
        #expect(try Self.problems(test.sdl) == test.problems)
    }

    /// 100 fields are accepted; the 101st is reported where it is declared.
    @Test func atMostOneHundredFields() throws {
        let hundred = (1...100).map { "  f\($0): String" }.joined(separator: "\n")
        #expect(try Self.read("extend type User {\n\(hundred)\n}").fields.declared.count == 100)
        #expect(try Self.problems("extend type User {\n\(hundred)\n  f101: Int\n}") == [
            "fields.graphql:102:3: More than 100 fields declared: at most 100.",
        ])
    }

    /// Every problem of a file at once, in the order of the file.
    @Test func allProblemsAtOnceInFileOrder() throws {
        #expect(try Self.problems("extend type User {\n  sub: Int\n  Bio: String\n  tags: [String]\n}") == [
            "fields.graphql:2:3: Field name \"sub\" is a registered JWT claim name; choose another name.",
            "fields.graphql:3:3: Field name \"Bio\" must start with a lowercase letter and have only letters and digits (at most 64 characters).",
            "fields.graphql:4:9: The items of list field \"tags\" must be non-null: write [String!].",
        ])
    }

    @Test func theSettingNamesAFileOrHoldsTheSDL() throws {
        let base = try AuthGraphQL.schema()
        let directory = TemporaryDirectory.make(prefix: "userfields")
        let path = (directory as NSString).appendingPathComponent("user-fields.graphql")
        try Data("extend type User {\n  bio: Strin\n}\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: UserFieldsFile.Problems(lines: ["\(path):2:8: Unknown type \"Strin\"."])) {
            try UserFieldsFile.read(setting: "@" + path, base: base)
        }
        #expect(throws: UserFieldsFile.Problems(lines: ["\(path).missing: no such file."])) {
            try UserFieldsFile.read(setting: "@\(path).missing", base: base)
        }
        #expect(try UserFieldsFile.read(setting: "extend type User { bio: String }", base: base).fields.declared.map(\.name) == ["bio"])
        #expect(throws: UserFieldsFile.Problems(lines: ["GATEHOUSE_USER_FIELDS:1:25: Unknown type \"Strin\"."])) {
            try UserFieldsFile.read(setting: "extend type User { bio: Strin }", base: base)
        }
    }

    @Test func fieldsFilesAreToldFromSchemas() {
        #expect(UserFieldsFile.isFieldsFile(Self.contractExample))
        #expect(!UserFieldsFile.isFieldsFile("type Query { a: Int }\ntype User { a: Int }\nextend type User { b: Int }"))
        #expect(!UserFieldsFile.isFieldsFile("enum Plan { A }"))
    }
}
