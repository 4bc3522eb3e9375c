extension GraphQLSchema {
    /// Builds and validates a schema from SDL text (spec §3), with extensions applied.
    /// `scalars` gives the coercion rules of custom scalars; others pass JSON through.
    public static func build(
        sdl: String, sourceName: String = "schema.graphql", scalars: [String: ScalarCoercion] = [:]
    ) throws(SchemaError) -> GraphQLSchema {
        let source = Source(sdl, name: sourceName)
        let document: Document
        do {
            document = try parse(source, options: .trusted)
        } catch {
            throw SchemaError(sourceName: sourceName, errors: [error])
        }
        return try build(document: document, source: source, scalars: scalars)
    }

    /// Builds and validates a schema from a parsed SDL document.
    public static func build(
        document: Document, source: Source, scalars: [String: ScalarCoercion] = [:]
    ) throws(SchemaError) -> GraphQLSchema {
        var builder = SchemaBuilder(source: source, scalars: scalars)
        if let schema = builder.build(document), builder.errors.isEmpty {
            var validator = SchemaValidator(schema: schema, locate: builder.locator())
            let problems = validator.validate()
            if problems.isEmpty { return schema }
            throw SchemaError(sourceName: source.name, errors: problems)
        }
        throw SchemaError(sourceName: source.name, errors: builder.errors)
    }
}

/// Where each schema element was defined, for errors found after building.
struct SchemaLocator: Sendable {
    let source: Source
    let spans: [String: Span]

    /// `coordinate` is `Type`, `Type.field`, `Type.field(arg:)` or `@directive`.
    func location(_ coordinate: String) -> [SourceLocation] {
        spans[coordinate].map { [source.location(of: $0.start)] } ?? []
    }
}

/// Turns an SDL document into runtime types, checking the SDL rules graphql-js's
/// validateSDL checks (unique and known names, directive use, extensions).
struct SchemaBuilder {
    let source: Source
    let scalars: [String: ScalarCoercion]
    private(set) var errors: [GraphQLError] = []
    /// Definition spans by schema coordinate, for `SchemaLocator`.
    private var spans: [String: Span] = [:]

    private static let preludeDocument: Document = {
        do { return try parse(Source(Prelude.sdl, name: "prelude"), options: .trusted) } catch {
            fatalError("The built-in prelude does not parse: \(error)")
        }
    }()

    init(source: Source, scalars: [String: ScalarCoercion]) {
        self.source = source
        self.scalars = scalars
    }

    func locator() -> SchemaLocator { SchemaLocator(source: source, spans: spans) }

    private mutating func report(_ message: String, _ nodeSpans: [Span]) {
        errors.append(GraphQLError(message, locations: nodeSpans.map { source.location(of: $0.start) }))
    }

    /// A merged view of one type: its definition and its extensions, in order.
    private struct TypeParts {
        var definition: TypeDefinition
        var extensions: [TypeDefinition] = []
        var isPrelude: Bool
        var all: [TypeDefinition] { [definition] + extensions }
    }

    mutating func build(_ document: Document) -> GraphQLSchema? {
        var order: [String] = []
        var parts: [String: TypeParts] = [:]
        var schemaDefinitions: [SchemaDefinition] = []
        var schemaExtensions: [SchemaDefinition] = []
        var extensions: [TypeDefinition] = []
        var directiveNodes: [String: DirectiveDefinition] = [:]
        // The SDL's directive definitions in document order, built-in ones it redefines included.
        var directiveOrder: [String] = []

        for definition in Self.preludeDocument.definitions {
            switch definition {
            case .type(let type): parts[type.name.value] = TypeParts(definition: type, isPrelude: true)
            case .directive(let directive): directiveNodes[directive.name.value] = directive
            default: break
            }
        }
        var userDirectives: Set<String> = []

        for definition in document.definitions {
            switch definition {
            case .operation(let node):
                report("A schema document may contain only type system definitions; found an operation.", [node.span])
            case .fragment(let node):
                report("A schema document may contain only type system definitions; found a fragment.", [node.span])
            case .schema(let node):
                if !schemaDefinitions.isEmpty { report("Must provide only one schema definition.", [node.span]) }
                schemaDefinitions.append(node)
            case .schemaExtension(let node):
                schemaExtensions.append(node)
            case .type(let type):
                let name = type.name.value
                if BuiltInScalars.all[name] != nil { continue }  // as graphql-js: the built-in wins
                checkName(type.name)
                if let existing = parts[name] {
                    if existing.isPrelude {
                        report("Type \"\(name)\" is built in and cannot be redefined.", [type.name.span])
                    } else {
                        report("There can be only one type named \"\(name)\".", [existing.definition.name.span, type.name.span])
                    }
                    continue
                }
                parts[name] = TypeParts(definition: type, isPrelude: false)
                order.append(name)
                spans[name] = type.name.span
            case .typeExtension(let type):
                extensions.append(type)
            case .directive(let directive):
                let name = directive.name.value
                checkName(directive.name)
                if userDirectives.contains(name) {
                    report("There can be only one directive named \"@\(name)\".", [directiveNodes[name]!.name.span, directive.name.span])
                    continue
                }
                userDirectives.insert(name)
                directiveOrder.append(name)
                directiveNodes[name] = directive
                spans["@" + name] = directive.name.span
            }
        }

        // PossibleTypeExtensions: an extension needs a defined type of the same kind.
        for type in extensions {
            let name = type.name.value
            guard var existing = parts[name] ?? BuiltInScalars.all[name].map({ scalar in
                TypeParts(definition: .scalar(ScalarTypeDefinition(name: Name(scalar.name))), isPrelude: true)
            }) else {
                let known = Array(parts.keys) + BuiltInScalars.all.keys
                report("Cannot extend type \"\(name)\" because it is not defined." + Suggestions.didYouMean(Suggestions.list(name, known)), [type.name.span])
                continue
            }
            guard kindName(existing.definition) == kindName(type) else {
                report("Cannot extend non-\(kindName(type)) type \"\(name)\".", [type.name.span])
                continue
            }
            if existing.isPrelude {
                report("Type \"\(name)\" is built in and cannot be extended.", [type.name.span])
                continue
            }
            existing.extensions.append(type)
            parts[name] = existing
        }

        // Directive definitions: unique argument names, known argument types.
        // buildASTSchema's order, which introspection shows: the SDL's directives, then the
        // built-in ones it did not redefine.
        var directives: [DirectiveDef] = []
        for name in directiveOrder + Prelude.directiveNames.filter({ !userDirectives.contains($0) }) {
            guard let node = directiveNodes[name] else { continue }
            if node.locations.isEmpty { continue }
            let isUser = userDirectives.contains(name)
            if isUser { checkUniqueArguments(node.arguments, owner: "@\(name)") }
            directives.append(
                DirectiveDef(
                    name: name, description: node.description?.value,
                    arguments: node.arguments.map { inputValue($0, coordinate: isUser ? "@\(name)(\($0.name.value):)" : nil) },
                    isRepeatable: node.isRepeatable,
                    locations: node.locations.compactMap { DirectiveLocation(rawValue: $0.value) }))
        }
        let directiveTable = Dictionary(directives.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

        // Runtime types.
        var built: [String: NamedType] = [:]
        for scalar in BuiltInScalars.all.values { built[scalar.name] = .scalar(scalar) }
        for (name, part) in parts {
            built[name] = buildType(part, directives: directiveTable)
        }
        let knownNames = Array(built.keys)

        // KnownTypeNames over every reference, and directive use in the SDL.
        for name in order {
            for definition in parts[name]!.all { checkReferences(definition, known: built, knownNames: knownNames, directives: directiveTable) }
        }
        for name in directiveOrder {
            for argument in directiveNodes[name]!.arguments {
                checkTypeReference(argument.type, known: built, knownNames: knownNames)
                checkDirectives(argument.directives, at: .argumentDefinition, directives: directiveTable)
            }
        }

        // Root operation types.
        var roots: [OperationType: Name] = [:]
        for node in schemaDefinitions + schemaExtensions {
            checkDirectives(node.directives, at: .schema, directives: directiveTable)
            for operationType in node.operationTypes {
                if roots[operationType.operation] != nil {
                    report("There can be only one \(operationType.operation.rawValue) type in schema.", [operationType.span])
                    continue
                }
                roots[operationType.operation] = operationType.type
                if built[operationType.type.value] == nil {
                    report("Unknown type \"\(operationType.type.value)\"." + Suggestions.didYouMean(Suggestions.list(operationType.type.value, knownNames)), [operationType.type.span])
                }
            }
        }
        guard errors.isEmpty else { return nil }

        func root(_ operation: OperationType, defaultName: String) -> NamedType? {
            if schemaDefinitions.isEmpty && roots[operation] == nil { return built[defaultName] }
            return roots[operation].flatMap { built[$0.value] }
        }
        let query = root(.query, defaultName: "Query")
        let mutation = root(.mutation, defaultName: "Mutation")
        let subscription = root(.subscription, defaultName: "Subscription")
        guard case .object(let queryType)? = query else {
            if let query {
                report("Query root type must be Object type, it cannot be \(query.name).", roots[.query].map { [$0.span] } ?? [])
            } else {
                report("Query root type must be provided.", schemaDefinitions.map(\.span))
            }
            return nil
        }
        func objectRoot(_ type: NamedType?, _ label: String, _ operation: OperationType) -> ObjectType? {
            guard let type else { return nil }
            guard case .object(let object) = type else {
                report("\(label) root type must be Object type if provided, it cannot be \(type.name).", roots[operation].map { [$0.span] } ?? [])
                return nil
            }
            return object
        }
        let mutationType = objectRoot(mutation, "Mutation", .mutation)
        let subscriptionType = objectRoot(subscription, "Subscription", .subscription)
        guard errors.isEmpty else { return nil }

        let types = orderedTypes(
            roots: [queryType.name, mutationType?.name, subscriptionType?.name].compactMap { $0 },
            definitions: order, directives: directives, built: built)
        return GraphQLSchema(
            description: schemaDefinitions.first?.description?.value, queryType: queryType,
            mutationType: mutationType, subscriptionType: subscriptionType, types: types, directives: directives)
    }

    /// graphql-js's type order (the GraphQLSchema constructor): its set starts with
    /// every defined type, and each is moved to the end as it is walked, so defined
    /// types keep document order, each followed by the types only it first reaches
    /// (built-in scalars); then the root types, the directives' arguments (in the
    /// directives' order: the SDL's, then the built-in ones) and `__Schema`.
    private func orderedTypes(
        roots: [String], definitions: [String], directives: [DirectiveDef], built: [String: NamedType]
    ) -> [NamedType] {
        var seen = Set(definitions)
        var ordered: [NamedType] = []
        func walk(_ name: String) {
            guard let type = built[name] else { return }
            ordered.append(type)
            references(type)
        }
        func visit(_ name: String) {
            guard !seen.contains(name) else { return }
            seen.insert(name)
            walk(name)
        }
        func references(_ type: NamedType) {
            switch type {
            case .union(let union):
                union.types.forEach(visit)
            case .object(let object), .interface(let object):
                object.interfaces.forEach(visit)
                for field in object.fields {
                    visit(field.type.namedType)
                    for argument in field.arguments { visit(argument.type.namedType) }
                }
            case .inputObject(let input):
                for field in input.fields { visit(field.type.namedType) }
            case .scalar, .enumType:
                break
            }
        }
        definitions.forEach(walk)
        roots.forEach(visit)
        for directive in directives { for argument in directive.arguments { visit(argument.type.namedType) } }
        visit("__Schema")
        return ordered
    }

    // MARK: Building types

    private func kindName(_ type: TypeDefinition) -> String {
        switch type {
        case .scalar: "scalar"
        case .object: "object"
        case .interface: "interface"
        case .union: "union"
        case .enumType: "enum"
        case .inputObject: "input object"
        }
    }

    private mutating func buildType(_ part: TypeParts, directives: [String: DirectiveDef]) -> NamedType {
        let name = part.definition.name.value
        let description = part.definition.description?.value
        let track = !part.isPrelude
        switch part.definition {
        case .scalar:
            let applied = part.all.flatMap(\.directives)
            if track { for node in part.all { checkDirectives(node.directives, at: .scalar, directives: directives) } }
            let url = argument("url", of: "specifiedBy", in: applied)
            return .scalar(ScalarType(name: name, description: description, specifiedByURL: url, coercion: scalars[name] ?? .passthrough))
        case .object, .interface:
            var fieldNodes: [FieldDefinition] = []
            var interfaces: [Name] = []
            for node in part.all {
                switch node {
                case .object(let object):
                    fieldNodes += object.fields
                    interfaces += object.interfaces
                    if track { checkDirectives(node.directives, at: .object, directives: directives) }
                case .interface(let interface):
                    fieldNodes += interface.fields
                    interfaces += interface.interfaces
                    if track { checkDirectives(node.directives, at: .interface, directives: directives) }
                default:
                    break
                }
            }
            var fields: [FieldDef] = []
            var seen: [String: Span] = [:]
            for field in fieldNodes {
                let fieldName = field.name.value
                if track {
                    checkName(field.name)
                    if let first = seen[fieldName] {
                        report("Field \"\(name).\(fieldName)\" can only be defined once.", [first, field.name.span])
                        continue
                    }
                    seen[fieldName] = field.name.span
                    spans["\(name).\(fieldName)"] = field.name.span
                    checkUniqueArguments(field.arguments, owner: "\(name).\(fieldName)")
                    checkDirectives(field.directives, at: .fieldDefinition, directives: directives)
                }
                fields.append(
                    FieldDef(
                        name: fieldName, description: field.description?.value,
                        arguments: field.arguments.map { inputValue($0, coordinate: track ? "\(name).\(fieldName)(\($0.name.value):)" : nil) },
                        type: TypeRef(field.type), deprecationReason: deprecationReason(field.directives)))
            }
            let object = ObjectType(name: name, description: description, fields: fields, interfaces: interfaces.map(\.value))
            if case .interface = part.definition { return .interface(object) }
            return .object(object)
        case .union:
            var members: [String] = []
            for node in part.all {
                if case .union(let union) = node { members += union.types.map(\.value) }
                if track { checkDirectives(node.directives, at: .union, directives: directives) }
            }
            return .union(UnionType(name: name, description: description, types: members))
        case .enumType:
            var values: [EnumValueDef] = []
            var seen: [String: Span] = [:]
            for node in part.all {
                guard case .enumType(let enumType) = node else { continue }
                if track { checkDirectives(node.directives, at: .enumType, directives: directives) }
                for value in enumType.values {
                    if track {
                        checkName(value.name)
                        if let first = seen[value.name.value] {
                            report("Enum value \"\(name).\(value.name.value)\" can only be defined once.", [first, value.name.span])
                            continue
                        }
                        seen[value.name.value] = value.name.span
                        spans["\(name).\(value.name.value)"] = value.name.span
                        checkDirectives(value.directives, at: .enumValue, directives: directives)
                    }
                    values.append(
                        EnumValueDef(
                            name: value.name.value, description: value.description?.value,
                            deprecationReason: deprecationReason(value.directives)))
                }
            }
            return .enumType(EnumType(name: name, description: description, values: values))
        case .inputObject:
            var fields: [InputValueDef] = []
            var seen: [String: Span] = [:]
            var isOneOf = false
            for node in part.all {
                guard case .inputObject(let input) = node else { continue }
                if track { checkDirectives(node.directives, at: .inputObject, directives: directives) }
                if node.directives.contains(where: { $0.name.value == "oneOf" }) { isOneOf = true }
                for field in input.fields {
                    if track {
                        checkName(field.name)
                        if let first = seen[field.name.value] {
                            report("Field \"\(name).\(field.name.value)\" can only be defined once.", [first, field.name.span])
                            continue
                        }
                        seen[field.name.value] = field.name.span
                        checkDirectives(field.directives, at: .inputFieldDefinition, directives: directives)
                    }
                    fields.append(inputValue(field, coordinate: track ? "\(name).\(field.name.value)" : nil))
                }
            }
            return .inputObject(InputObjectType(name: name, description: description, fields: fields, isOneOf: isOneOf))
        }
    }

    private mutating func inputValue(_ node: InputValueDefinition, coordinate: String?) -> InputValueDef {
        if let coordinate {
            checkName(node.name)
            spans[coordinate] = node.name.span
        }
        return InputValueDef(
            name: node.name.value, description: node.description?.value, type: TypeRef(node.type),
            defaultValue: node.defaultValue, deprecationReason: deprecationReason(node.directives))
    }

    private func deprecationReason(_ directives: [Directive]) -> String? {
        guard let directive = directives.first(where: { $0.name.value == "deprecated" }) else { return nil }
        if let argument = directive.arguments.first(where: { $0.name.value == "reason" }),
            case .string(let reason, _) = argument.value.kind
        {
            return reason
        }
        return "No longer supported"
    }

    private func argument(_ argumentName: String, of directiveName: String, in directives: [Directive]) -> String? {
        guard let directive = directives.first(where: { $0.name.value == directiveName }),
            let argument = directive.arguments.first(where: { $0.name.value == argumentName }),
            case .string(let value, _) = argument.value.kind
        else { return nil }
        return value
    }

    // MARK: SDL checks

    /// Names starting with `__` are reserved (spec §2.1.9).
    private mutating func checkName(_ name: Name) {
        if name.value.hasPrefix("__") {
            report("Name \"\(name.value)\" must not begin with \"__\", which is reserved by GraphQL introspection.", [name.span])
        }
    }

    private mutating func checkUniqueArguments(_ arguments: [InputValueDefinition], owner: String) {
        var seen: [String: Span] = [:]
        for argument in arguments {
            if let first = seen[argument.name.value] {
                report("Argument \"\(owner)(\(argument.name.value):)\" can only be defined once.", [first, argument.name.span])
            } else {
                seen[argument.name.value] = argument.name.span
            }
        }
    }

    private mutating func checkTypeReference(_ type: TypeReference, known: [String: NamedType], knownNames: [String]) {
        let name = type.namedType
        if known[name.value] == nil {
            report("Unknown type \"\(name.value)\"." + Suggestions.didYouMean(Suggestions.list(name.value, knownNames)), [name.span])
        }
    }

    private mutating func checkReferences(
        _ definition: TypeDefinition, known: [String: NamedType], knownNames: [String], directives: [String: DirectiveDef]
    ) {
        func checkName(_ name: Name, into builder: inout SchemaBuilder) {
            if known[name.value] == nil {
                builder.report("Unknown type \"\(name.value)\"." + Suggestions.didYouMean(Suggestions.list(name.value, knownNames)), [name.span])
            }
        }
        switch definition {
        case .object(let object), .interface(let object):
            for interface in object.interfaces { checkName(interface, into: &self) }
            for field in object.fields {
                checkTypeReference(field.type, known: known, knownNames: knownNames)
                for argument in field.arguments {
                    checkTypeReference(argument.type, known: known, knownNames: knownNames)
                    checkDirectives(argument.directives, at: .argumentDefinition, directives: directives)
                }
            }
        case .union(let union):
            for member in union.types { checkName(member, into: &self) }
        case .inputObject(let input):
            for field in input.fields { checkTypeReference(field.type, known: known, knownNames: knownNames) }
        case .scalar, .enumType:
            break
        }
    }

    /// KnownDirectives, UniqueDirectivesPerLocation, and the directives' arguments.
    private mutating func checkDirectives(_ applied: [Directive], at location: DirectiveLocation, directives: [String: DirectiveDef]) {
        var seen: [String: Span] = [:]
        for directive in applied {
            let name = directive.name.value
            guard let definition = directives[name] else {
                report("Unknown directive \"@\(name)\".", [directive.name.span])
                continue
            }
            if !definition.locations.contains(location) {
                report("Directive \"@\(name)\" may not be used on \(location.rawValue).", [directive.span])
            }
            if !definition.isRepeatable {
                if let first = seen[name] {
                    report("The directive \"@\(name)\" can only be used once at this location.", [first, directive.span])
                }
                seen[name] = directive.span
            }
            var given: [String: Span] = [:]
            for argument in directive.arguments {
                if let first = given[argument.name.value] {
                    report("There can be only one argument named \"\(argument.name.value)\".", [first, argument.name.span])
                }
                given[argument.name.value] = argument.name.span
                if definition.argument(argument.name.value) == nil {
                    report("Unknown argument \"\(argument.name.value)\" on directive \"@\(name)\"."
                        + Suggestions.didYouMean(Suggestions.list(argument.name.value, definition.arguments.map(\.name))), [argument.name.span])
                }
            }
            for argument in definition.arguments where argument.isRequired && given[argument.name] == nil {
                report("Directive \"@\(name)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.", [directive.span])
            }
        }
    }
}
