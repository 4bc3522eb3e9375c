import Auth
import Foundation
import GraphQL

/// The fields an app declares on users (`GATEHOUSE_USER_FIELDS`): an SDL file of enums and
/// `extend type User { … }`, read with the engine's parser and checked against the served
/// schema. What it declares becomes the domain's ``UserFields`` (the values' rules) and the SDL
/// the served schema is extended with (``extensionSDL``).
///
/// Every problem is reported as `file:line:column: message`, all of them at once.
public struct UserFieldsFile: Sendable {
    /// The declared fields and their rules.
    public let fields: UserFields
    /// The file's enums, its fields on `User` (and Parse 3.7's `Me`), and the same fields (as
    /// inputs, with their descriptions) on `CreateUserFieldsInput`, `UpdateUserFieldsInput`,
    /// `UserLoginWithInput` and Parse 3.7's `_UserSignUpFields`.
    public let extensionSDL: String

    /// The object types a declared field joins: `User`, and Parse 3.7's `Me` (a user with its token).
    public static let objectTypes = ["User", "Me"]
    /// The input types a declared field joins.
    public static let inputTypes = ["CreateUserFieldsInput", "UpdateUserFieldsInput", "UserLoginWithInput", "_UserSignUpFields"]
    /// The scalars a declared field may have (besides the file's enums).
    static let scalarTypes: [String: UserFields.ValueType] = [
        "String": .string, "Int": .int, "Float": .float, "Boolean": .boolean, "Date": .date, "Object": .object,
    ]

    /// A declared field's type as the file writes it (`String`, `[Plan!]`).
    public static func typeName(_ field: UserFields.Field) -> String {
        let named: String = switch field.type {
        case .string: "String"
        case .int: "Int"
        case .float: "Float"
        case .boolean: "Boolean"
        case .date: "Date"
        case .object: "Object"
        case .enumeration(let name, _): name
        }
        return field.isList ? "[\(named)!]" : named
    }

    /// What stopped the file: each line `file:line:column: message`.
    public struct Problems: Error, Sendable, Hashable, CustomStringConvertible {
        public let lines: [String]
        public init(lines: [String]) { self.lines = lines }
        public var description: String { lines.joined(separator: "\n") }
    }

    /// The setting's value: `@/path/file.graphql`, or the SDL itself.
    public static func read(setting: String, base: GraphQLSchema) throws(Problems) -> UserFieldsFile {
        guard setting.hasPrefix("@") else { return try UserFieldsFile(sdl: setting, sourceName: "GATEHOUSE_USER_FIELDS", base: base) }
        let path = String(setting.dropFirst())
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problems(lines: [
                FileManager.default.fileExists(atPath: path) ? "\(path): cannot be read." : "\(path): no such file."
            ])
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Problems(lines: ["\(path): is not UTF-8 text."]) }
        return try UserFieldsFile(sdl: text, sourceName: path, base: base)
    }

    /// Whether SDL `text` is a fields file rather than a whole schema: it extends `User` and
    /// defines no `Query` type or schema of its own.
    public static func isFieldsFile(_ text: String) -> Bool {
        guard let document = try? parse(Source(DirectiveShorthand(text).text), options: .trusted) else { return false }
        var extendsUser = false
        for definition in document.definitions {
            switch definition {
            case .type(let type) where type.name.value == "Query": return false
            case .schema: return false
            case .typeExtension(let type) where type.name.value == "User": extendsUser = true
            default: break
            }
        }
        return extendsUser
    }

    /// Reads `sdl` (named `sourceName` in messages) against the served schema `base`.
    public init(sdl: String, sourceName: String, base: GraphQLSchema) throws(Problems) {
        let shorthand = DirectiveShorthand(sdl)
        let source = Source(shorthand.text, name: sourceName)
        func line(_ location: SourceLocation, _ message: String) -> String {
            "\(sourceName):\(location.line):\(shorthand.originalColumn(line: location.line, column: location.column)): \(message)"
        }
        let document: Document
        do { document = try parse(source, options: ParseOptions(maxTokens: 100_000, maxDepth: 64)) } catch {
            throw Problems(lines: [line(error.locations.first ?? SourceLocation(line: 1, column: 1), error.message)])
        }
        var reader = Reader(base: base)
        reader.read(document)
        if !reader.problems.isEmpty {
            throw Problems(lines: reader.problems.sorted { $0.offset < $1.offset }.map { line(source.location(of: $0.offset), $0.message) })
        }
        fields = UserFields(reader.fields)
        extensionSDL = Self.extensionSDL(enums: reader.enums, fields: reader.fieldNodes)
    }

    /// The SDL that extends the served schema with `fields` (and the enums they use).
    static func extensionSDL(enums: [EnumTypeDefinition], fields: [FieldDefinition]) -> String {
        guard !fields.isEmpty || !enums.isEmpty else { return "" }
        var definitions = enums.map { Definition.type(.enumType($0)) }
        if !fields.isEmpty {
            for type in objectTypes {
                definitions.append(.typeExtension(.object(ObjectTypeDefinition(name: Name(type), fields: fields))))
            }
            let inputs = fields.map { InputValueDefinition(description: $0.description, name: $0.name, type: $0.type) }
            for type in inputTypes {
                definitions.append(.typeExtension(.inputObject(InputObjectTypeDefinition(name: Name(type), fields: inputs))))
            }
        }
        return print(Document(definitions: definitions)) + "\n"
    }
}

/// The checks of a fields file, over its parsed document.
private struct Reader {
    struct Problem {
        let offset: Int
        let message: String
    }

    let base: GraphQLSchema
    var problems: [Problem] = []
    var enums: [EnumTypeDefinition] = []
    var fields: [UserFields.Field] = []
    var fieldNodes: [FieldDefinition] = []

    /// Names a declared field may not take: every field of `User` and of the three inputs.
    let builtInFields: [String: String]

    init(base: GraphQLSchema) {
        self.base = base
        var names: [String: String] = [:]
        for field in base.type("User")?.fields ?? [] { names[field.name] = "User" }
        for type in UserFieldsFile.inputTypes {
            if case .inputObject(let input)? = base.type(type) {
                for field in input.fields where names[field.name] == nil { names[field.name] = type }
            }
        }
        builtInFields = names
    }

    mutating func report(_ span: Span, _ message: String) {
        problems.append(Problem(offset: span.start, message: message))
    }

    mutating func read(_ document: Document) {
        var enumNames: [String: Span] = [:]
        var extensions: [ObjectTypeDefinition] = []
        for definition in document.definitions {
            switch definition {
            case .type(.enumType(let node)):
                let name = node.name.value
                if base.type(name) != nil {
                    report(node.name.span, "Type \"\(name)\" is already defined by Gatehouse; give the enum another name.")
                } else if enumNames[name] != nil {
                    report(node.name.span, "There can be only one type named \"\(name)\".")
                } else if name.hasPrefix("__") {
                    report(node.name.span, "Name \"\(name)\" must not begin with \"__\", which is reserved by GraphQL introspection.")
                } else {
                    enumNames[name] = node.name.span
                    checkEnum(node)
                    enums.append(node)
                }
            case .typeExtension(.object(let node)) where node.name.value == "User":
                if !node.interfaces.isEmpty { report(node.interfaces[0].span, "The fields file cannot add interfaces to User.") }
                for directive in node.directives { checkDirectiveName(directive, allowed: [], at: "an extension of User") }
                extensions.append(node)
            case .type(.object(let node)) where node.name.value == "User":
                report(node.name.span, "User is defined by Gatehouse: declare its fields with \"extend type User { … }\".")
            default:
                report(definition.span, "A fields file declares enums and \"extend type User { … }\" only; found \(Self.kind(definition)).")
            }
        }
        var seen: [String: Span] = [:]
        for node in extensions {
            for field in node.fields {
                if seen[field.name.value] != nil {
                    report(field.name.span, "Field \"User.\(field.name.value)\" can only be defined once.")
                    continue
                }
                seen[field.name.value] = field.name.span
                if fieldNodes.count == UserFields.maxFields {
                    report(field.name.span, "More than \(UserFields.maxFields) fields declared: at most \(UserFields.maxFields).")
                }
                if let checked = check(field, enums: enums) {
                    fields.append(checked)
                }
                fieldNodes.append(field)
            }
        }
    }

    static func kind(_ definition: Definition) -> String {
        switch definition {
        case .operation: "an operation"
        case .fragment: "a fragment"
        case .schema, .schemaExtension: "a schema definition"
        case .directive(let node): "a directive definition \"@\(node.name.value)\""
        case .type(let type): "a type definition \"\(type.name.value)\""
        case .typeExtension(let type): "an extension of \"\(type.name.value)\""
        }
    }

    mutating func checkEnum(_ node: EnumTypeDefinition) {
        for directive in node.directives { checkDirectiveName(directive, allowed: [], at: "an enum") }
        var values: Set<String> = []
        for value in node.values {
            if ["true", "false", "null"].contains(value.name.value) {
                report(value.name.span, "Enum value \"\(node.name.value).\(value.name.value)\" cannot be true, false or null.")
            } else if !values.insert(value.name.value).inserted {
                report(value.name.span, "Enum value \"\(node.name.value).\(value.name.value)\" can only be defined once.")
            }
            for directive in value.directives { checkDirectiveName(directive, allowed: ["deprecated"], at: "an enum value") }
        }
    }

    /// Reports a directive other than `allowed` (unknown, or one of Gatehouse's in the wrong place).
    mutating func checkDirectiveName(_ directive: Directive, allowed: Set<String>, at place: String) {
        let name = directive.name.value
        if allowed.contains(name) { return }
        if UserFieldDirective(rawValue: name) != nil || base.directive(name) != nil {
            report(directive.span, "Directive \"@\(name)\" may not be used on \(place).")
        } else {
            report(directive.span, "Unknown directive \"@\(name)\".")
        }
    }

    /// The declared field `node`, or nil (with its problems reported).
    mutating func check(_ node: FieldDefinition, enums: [EnumTypeDefinition]) -> UserFields.Field? {
        let name = node.name.value
        let problemsBefore = problems.count
        if !Self.isFieldName(name) {
            report(node.name.span, "Field name \"\(name)\" must start with a lowercase letter and have only letters and digits (at most 64 characters).")
        } else if let type = builtInFields[name] {
            report(node.name.span, "Field \"\(name)\" is a built-in field of \(type); choose another name.")
        } else if UserFields.registeredClaimNames.contains(name) {
            report(node.name.span, "Field name \"\(name)\" is a registered JWT claim name; choose another name.")
        }
        if !node.arguments.isEmpty { report(node.arguments[0].span, "Field \"\(name)\" cannot take arguments.") }

        // The type: T or [T!], T a scalar of ours or an enum of the file.
        var isList = false
        var named = node.type
        switch node.type {
        case .nonNull:
            report(node.type.span, "Field \"\(name)\" must be nullable (users made before it have no value): write \(Self.nullable(node.type)), not \(node.type).")
        case .list(.nonNull(.named(let inner), _), _):
            isList = true
            named = .named(inner)
        case .list(.named, _):
            report(node.type.span, "The items of list field \"\(name)\" must be non-null: write [\(node.type.namedType.value)!].")
        case .list:
            report(node.type.span, "Field \"\(name)\" cannot be a list of lists.")
        case .named:
            break
        }
        let typeName = named.namedType.value
        var valueType: UserFields.ValueType? = UserFieldsFile.scalarTypes[typeName]
        if valueType == nil, let declared = enums.first(where: { $0.name.value == typeName }) {
            valueType = .enumeration(name: typeName, values: declared.values.map(\.name.value))
        }
        if valueType == nil {
            if base.type(typeName) != nil {
                report(named.namedType.span, "Field \"\(name)\" cannot be of type \(typeName): use String, Int, Float, Boolean, Date, Object, an enum of this file, or a list of one of these.")
            } else {
                let known = UserFieldsFile.scalarTypes.keys.sorted() + enums.map(\.name.value)
                let suggestion = known.first { $0.lowercased() == typeName.lowercased() }.map { " Did you mean \"\($0)\"?" } ?? ""
                report(named.namedType.span, "Unknown type \"\(typeName)\"." + suggestion)
            }
        }

        var field = UserFields.Field(name: name, type: valueType ?? .string, isList: isList)
        var seen: Set<String> = []
        for directive in node.directives {
            let directiveName = directive.name.value
            if directiveName == "deprecated" { continue }
            guard let kind = UserFieldDirective(rawValue: directiveName) else {
                checkDirectiveName(directive, allowed: [], at: "a user field")
                continue
            }
            if !seen.insert(directiveName).inserted {
                report(directive.span, "The directive \"@\(directiveName)\" can only be used once at this location.")
                continue
            }
            apply(kind, directive, to: &field, named: typeName, typeKnown: valueType != nil)
        }
        if seen.contains("serverOnly") && seen.contains("hidden") {
            report(node.name.span, "Field \"\(name)\" cannot be both @serverOnly and @hidden: @hidden alone keeps the master key its only reader and writer.")
        }
        if field.isClaim && field.access == .hidden {
            report(node.name.span, "Field \"\(name)\" cannot be both @hidden and a @claim: an access token is read by its holder.")
        }
        return problems.count == problemsBefore ? field : nil
    }

    /// Applies one of Gatehouse's directives to `field`, reporting a misuse.
    mutating func apply(_ kind: UserFieldDirective, _ directive: Directive, to field: inout UserFields.Field, named typeName: String, typeKnown: Bool) {
        let name = field.name
        if let limit = kind.limit {
            guard let n = limitArgument(directive, kind, range: limit) else { return }
            guard typeKnown else { return }
            switch kind {
            case .maxLength where field.type == .string: field.maxLength = n
            case .maxItems where field.isList: field.maxItems = n
            case .maxBytes where field.type == .object: field.maxBytes = n
            case .maxLength:
                report(directive.span, "@maxLength applies to String fields (and lists of String); \"\(name)\" is \(field.isList ? "[\(typeName)!]" : typeName).")
            case .maxItems:
                report(directive.span, "@maxItems applies to list fields; \"\(name)\" is \(typeName).")
            default:
                report(directive.span, "@maxBytes applies to Object fields (and lists of Object); \"\(name)\" is \(field.isList ? "[\(typeName)!]" : typeName).")
            }
            return
        }
        if let argument = directive.arguments.first {
            report(argument.span, "Directive \"@\(kind.rawValue)\" takes no arguments.")
        }
        switch kind {
        case .serverOnly: field.access = field.access == .hidden ? .hidden : .serverOnly
        case .hidden: field.access = .hidden
        case .claim: field.isClaim = true
        default: break
        }
    }

    /// The whole number `n` of a limit directive within `range`, or nil (reported).
    mutating func limitArgument(_ directive: Directive, _ kind: UserFieldDirective, range: ClosedRange<Int>) -> Int? {
        let wanted = "@\(kind.rawValue)(n:) needs a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard directive.arguments.count == 1, let argument = directive.arguments.first, argument.name.value == "n" else {
            let unknown = directive.arguments.first { $0.name.value != "n" }
            report(unknown?.span ?? directive.span, unknown.map { "Unknown argument \"\($0.name.value)\" on directive \"@\(kind.rawValue)\"; \(wanted)." } ?? "\(wanted).")
            return nil
        }
        guard case .int(let text) = argument.value.kind, let n = Int(text), range.contains(n) else {
            report(argument.value.span, "\(wanted), not \(print(argument.value)).")
            return nil
        }
        return n
    }

    /// `[a-z][A-Za-z0-9]{0,63}`.
    static func isFieldName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, ("a"..."z").contains(first), scalars.count <= 64 else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// `type` without its outer non-null.
    static func nullable(_ type: TypeReference) -> String {
        if case .nonNull(let inner, _) = type { return inner.description }
        return type.description
    }
}

/// Gatehouse's directives on declared user fields (declared in `schema.graphql`).
enum UserFieldDirective: String, CaseIterable {
    case maxLength, maxItems, maxBytes, serverOnly, hidden, claim

    /// The range of a limit directive's `n`; nil for the others.
    var limit: ClosedRange<Int>? {
        switch self {
        case .maxLength: 1...UserFields.maxTotalBytes
        case .maxItems: 1...10_000
        case .maxBytes: 2...UserFields.maxTotalBytes
        default: nil
        }
    }
}
