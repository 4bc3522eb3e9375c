import JSON

/// The introspection system (spec §4): the `__schema` and `__type` meta-fields of
/// the query root and the fields of the `__Schema`, `__Type`, `__Field`,
/// `__InputValue`, `__EnumValue` and `__Directive` types, resolved from the schema.
enum Introspection {
    static let schemaField = FieldDef(
        name: "__schema", description: "Access the current type schema of this server.",
        type: .nonNull(.named("__Schema")))

    static let typeField = FieldDef(
        name: "__type", description: "Request the type information of a single type.",
        arguments: [InputValueDef(name: "name", type: .nonNull(.named("String")))], type: .named("__Type"))

    static let typenameField = FieldDef(
        name: "__typename", description: "The name of the current Object type at runtime.",
        type: .nonNull(.named("String")))

    /// The meta-fields only the query root has.
    static func metaField(_ name: String) -> FieldDef? {
        switch name {
        case "__schema": schemaField
        case "__type": typeField
        default: nil
        }
    }

    /// The fields introspection resolves, named once per field plan rather than
    /// compared as strings per value.
    enum FieldName: Sendable {
        case schemaMeta, typeMeta
        case args, defaultValue, deprecationReason, description, directives, enumValues, fields, inputFields
        case interfaces, isDeprecated, isOneOf, isRepeatable, kind, locations, mutationType, name, ofType
        case possibleTypes, queryType, specifiedByURL, subscriptionType, type, types
        /// Any other name: resolves to null.
        case other

        /// `__typename`, on an introspection type.
        case typename

        init(_ name: String) {
            // By length first: a comparison or two instead of a chain of twenty-five.
            switch name.utf8.count {
            case 4:
                switch name {
                case "name": self = .name
                case "kind": self = .kind
                case "type": self = .`type`
                case "args": self = .args
                default: self = .other
                }
            case 5:
                switch name {
                case "types": self = .types
                default: self = .other
                }
            case 6:
                switch name {
                case "ofType": self = .ofType
                case "fields": self = .fields
                case "__type": self = .typeMeta
                default: self = .other
                }
            case 7:
                switch name {
                case "isOneOf": self = .isOneOf
                default: self = .other
                }
            case 8:
                switch name {
                case "__schema": self = .schemaMeta
                default: self = .other
                }
            case 9:
                switch name {
                case "queryType": self = .queryType
                case "locations": self = .locations
                default: self = .other
                }
            case 10:
                switch name {
                case "interfaces": self = .interfaces
                case "enumValues": self = .enumValues
                case "directives": self = .directives
                case "__typename": self = .typename
                default: self = .other
                }
            case 11:
                switch name {
                case "description": self = .description
                case "inputFields": self = .inputFields
                default: self = .other
                }
            case 12:
                switch name {
                case "isDeprecated": self = .isDeprecated
                case "defaultValue": self = .defaultValue
                case "isRepeatable": self = .isRepeatable
                case "mutationType": self = .mutationType
                default: self = .other
                }
            case 13:
                switch name {
                case "possibleTypes": self = .possibleTypes
                default: self = .other
                }
            case 14:
                switch name {
                case "specifiedByURL": self = .specifiedByURL
                default: self = .other
                }
            case 16:
                switch name {
                case "subscriptionType": self = .subscriptionType
                default: self = .other
                }
            case 17:
                switch name {
                case "deprecationReason": self = .deprecationReason
                default: self = .other
                }
            default: self = .other
            }
        }
    }


    /// The parent value of an introspection type's fields, one case per type, so a
    /// field resolves with a single cast of its `.value` parent.
    enum Parent: Sendable {
        /// `__Schema`.
        case schema
        /// `__Type`: a type reference, wrappers included.
        case type(TypeRef)
        /// `__Field`.
        case field(FieldDef)
        /// `__InputValue`.
        case inputValue(InputValueDef)
        /// `__EnumValue`.
        case enumValue(EnumValueDef)
        /// `__Directive`.
        case directive(DirectiveDef)
    }

    private static func type(_ ref: TypeRef) -> ResolvedValue { .value(Parent.type(ref)) }

    private static func includeDeprecated(_ arguments: JSONObject) -> Bool {
        if case .bool(true)? = arguments["includeDeprecated"] { return true }
        return false
    }

    private struct UnexpectedParent: Error, CustomStringConvertible {
        let coordinate: String
        var description: String { "Introspection field \(coordinate) was given an unexpected parent value." }
    }

    /// The introspection parent a source value holds, if any (cast once per object).
    static func parent(_ source: ResolvedValue) -> Parent? {
        guard case .value(let value) = source else { return nil }
        return value as? Parent
    }

    /// Resolves `fieldName` of the query root's meta-fields or of an introspection type
    /// (`parent`: the source value as cast by `parent(_:)`).
    static func resolve(
        _ typeName: String, _ fieldName: String, _ id: FieldName, _ parent: Parent?, _ arguments: JSONObject,
        _ schema: GraphQLSchema, isIntrospectionType: Bool
    ) throws -> ResolvedValue {
        if !isIntrospectionType {
            switch id {
            case .schemaMeta: return .value(Parent.schema)
            case .typeMeta:
                guard case .string(let name)? = arguments["name"], schema.type(name) != nil else { return .null }
                return type(.named(name))
            default: return .null
            }
        }
        switch parent {
        case .schema?:
            return resolveSchema(id, schema)
        case .type(let ref)?:
            return resolveType(id, ref, arguments, schema)
        case .field(let field)?:
            switch id {
            case .name: return .string(field.name)
            case .description: return field.description.map(ResolvedValue.string) ?? .null
            case .args:
                let all = includeDeprecated(arguments)
                return .list(field.arguments.filter { all || $0.deprecationReason == nil }.map { .value(Parent.inputValue($0)) })
            case .type: return type(field.type)
            case .isDeprecated: return .bool(field.deprecationReason != nil)
            case .deprecationReason: return field.deprecationReason.map(ResolvedValue.string) ?? .null
            default: return .null
            }
        case .inputValue(let input)?:
            switch id {
            case .name: return .string(input.name)
            case .description: return input.description.map(ResolvedValue.string) ?? .null
            case .type: return type(input.type)
            case .defaultValue:
                // The canonical literal of the coerced default (graphql-js astFromValue).
                guard let literal = input.defaultValue else { return .null }
                let coercer = InputCoercer(schema: schema)
                guard let value = coercer.literal(literal, type: input.type, variables: [:]),
                    let canonical = coercer.astFromValue(value, type: input.type)
                else { return .string(print(literal)) }
                return .string(print(canonical))
            case .isDeprecated: return .bool(input.deprecationReason != nil)
            case .deprecationReason: return input.deprecationReason.map(ResolvedValue.string) ?? .null
            default: return .null
            }
        case .enumValue(let value)?:
            switch id {
            case .name: return .string(value.name)
            case .description: return value.description.map(ResolvedValue.string) ?? .null
            case .isDeprecated: return .bool(value.deprecationReason != nil)
            case .deprecationReason: return value.deprecationReason.map(ResolvedValue.string) ?? .null
            default: return .null
            }
        case .directive(let directive)?:
            switch id {
            case .name: return .string(directive.name)
            case .description: return directive.description.map(ResolvedValue.string) ?? .null
            case .isRepeatable: return .bool(directive.isRepeatable)
            case .locations: return .list(directive.locations.map { .string($0.rawValue) })
            case .args:
                let all = includeDeprecated(arguments)
                return .list(directive.arguments.filter { all || $0.deprecationReason == nil }.map { .value(Parent.inputValue($0)) })
            default: return .null
            }
        case nil:
            throw UnexpectedParent(coordinate: "\(typeName).\(fieldName)")
        }
    }

    private static func resolveSchema(_ id: FieldName, _ schema: GraphQLSchema) -> ResolvedValue {
        switch id {
        case .description: return schema.description.map(ResolvedValue.string) ?? .null
        case .types: return .list(schema.types.map { type(.named($0.name)) })
        case .queryType: return type(.named(schema.queryType.name))
        case .mutationType: return schema.mutationType.map { type(.named($0.name)) } ?? .null
        case .subscriptionType: return schema.subscriptionType.map { type(.named($0.name)) } ?? .null
        case .directives: return .list(schema.directives.map { .value(Parent.directive($0)) })
        default: return .null
        }
    }

    private static func resolveType(
        _ id: FieldName, _ ref: TypeRef, _ arguments: JSONObject, _ schema: GraphQLSchema
    ) -> ResolvedValue {
        switch ref {
        case .list(let inner), .nonNull(let inner):
            switch id {
            case .kind: return .string(ref.isNonNull ? "NON_NULL" : "LIST")
            case .ofType: return type(inner)
            default: return .null
            }
        case .named(let name):
            guard let named = schema.type(name) else { return .null }
            let all = includeDeprecated(arguments)
            switch (id, named) {
            case (.kind, _): return .string(named.kind)
            case (.name, _): return .string(named.name)
            case (.description, _): return named.description.map(ResolvedValue.string) ?? .null
            case (.specifiedByURL, .scalar(let scalar)): return scalar.specifiedByURL.map(ResolvedValue.string) ?? .null
            case (.fields, .object(let object)), (.fields, .interface(let object)):
                return .list(object.fields.filter { all || $0.deprecationReason == nil }.map { .value(Parent.field($0)) })
            case (.interfaces, .object(let object)), (.interfaces, .interface(let object)):
                return .list(object.interfaces.map { type(.named($0)) })
            case (.possibleTypes, .interface), (.possibleTypes, .union):
                return .list(schema.possibleTypes(named.name).map { type(.named($0.name)) })
            case (.enumValues, .enumType(let enumType)):
                return .list(enumType.values.filter { all || $0.deprecationReason == nil }.map { .value(Parent.enumValue($0)) })
            case (.inputFields, .inputObject(let input)):
                return .list(input.fields.filter { all || $0.deprecationReason == nil }.map { .value(Parent.inputValue($0)) })
            case (.isOneOf, .inputObject(let input)): return .bool(input.isOneOf)
            default: return .null
            }
        }
    }
}
