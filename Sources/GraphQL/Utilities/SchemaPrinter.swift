/// Prints a schema as SDL, byte for byte as graphql-js's `printSchema` does: the
/// `schema` definition (only when needed), then the custom directives, then the
/// types in the schema's order. Built-in scalars, built-in directives and the
/// introspection types are left out; there is no trailing new line.
///
/// Default values are printed canonically: the literal is coerced to its type and
/// written back (graphql-js `astFromValue`), so `Float = 1.0` prints as `Float = 1` and
/// an input object's defaults show its fields' own defaults, in field order.
public func printSchema(_ schema: GraphQLSchema) -> String {
    SchemaPrinter(schema: schema).print()
}

/// The parts of `printSchema`, after graphql-js's `printSchema.ts`.
struct SchemaPrinter {
    let schema: GraphQLSchema

    /// graphql-js DEFAULT_DEPRECATION_REASON.
    static let defaultDeprecationReason = "No longer supported"

    func print() -> String {
        var parts: [String] = []
        if let definition = schemaDefinition() { parts.append(definition) }
        for directive in schema.directives where !Self.isSpecifiedDirective(directive.name) {
            parts.append(print(directive))
        }
        for type in schema.types where Self.isDefinedType(type.name) {
            parts.append(print(type))
        }
        return parts.joined(separator: "\n\n")
    }

    /// graphql-js isSpecifiedDirective: by name, so a redefined built-in is left out too.
    static func isSpecifiedDirective(_ name: String) -> Bool { Prelude.directiveNames.contains(name) }

    /// Neither a built-in scalar nor an introspection type (graphql-js isDefinedType).
    static func isDefinedType(_ name: String) -> Bool {
        BuiltInScalars.all[name] == nil && !Prelude.introspectionTypeNames.contains(name)
    }

    // MARK: Schema definition

    /// `schema { ... }`, or nil when the roots are named Query, Mutation and
    /// Subscription and the schema has no description.
    func schemaDefinition() -> String? {
        let isOfCommonNames = schema.queryType.name == "Query"
            && (schema.mutationType.map { $0.name == "Mutation" } ?? true)
            && (schema.subscriptionType.map { $0.name == "Subscription" } ?? true)
        if schema.description == nil && isOfCommonNames { return nil }
        var operations = ["  query: \(schema.queryType.name)"]
        if let mutation = schema.mutationType { operations.append("  mutation: \(mutation.name)") }
        if let subscription = schema.subscriptionType { operations.append("  subscription: \(subscription.name)") }
        return Self.description(schema.description) + "schema {\n" + operations.joined(separator: "\n") + "\n}"
    }

    // MARK: Types

    func print(_ type: NamedType) -> String {
        switch type {
        case .scalar(let scalar):
            return Self.description(scalar.description) + "scalar \(scalar.name)" + Self.specifiedBy(scalar.specifiedByURL)
        case .object(let object):
            return Self.description(object.description) + "type \(object.name)" + implements(object) + fields(object)
        case .interface(let interface):
            return Self.description(interface.description) + "interface \(interface.name)" + implements(interface)
                + fields(interface)
        case .union(let union):
            let members = union.types.isEmpty ? "" : " = " + union.types.joined(separator: " | ")
            return Self.description(union.description) + "union \(union.name)" + members
        case .enumType(let enumType):
            let values = enumType.values.enumerated().map { index, value in
                Self.description(value.description, indentation: "  ", firstInBlock: index == 0) + "  " + value.name
                    + Self.deprecated(value.deprecationReason)
            }
            return Self.description(enumType.description) + "enum \(enumType.name)" + Self.block(values)
        case .inputObject(let input):
            let fields = input.fields.enumerated().map { index, field in
                Self.description(field.description, indentation: "  ", firstInBlock: index == 0) + "  " + inputValue(field)
            }
            return Self.description(input.description) + "input \(input.name)" + (input.isOneOf ? " @oneOf" : "")
                + Self.block(fields)
        }
    }

    private func implements(_ type: ObjectType) -> String {
        type.interfaces.isEmpty ? "" : " implements " + type.interfaces.joined(separator: " & ")
    }

    private func fields(_ type: ObjectType) -> String {
        let lines = type.fields.enumerated().map { index, field in
            Self.description(field.description, indentation: "  ", firstInBlock: index == 0) + "  " + field.name
                + arguments(field.arguments, indentation: "  ") + ": \(field.type)" + Self.deprecated(field.deprecationReason)
        }
        return Self.block(lines)
    }

    func print(_ directive: DirectiveDef) -> String {
        Self.description(directive.description) + "directive @\(directive.name)" + arguments(directive.arguments)
            + (directive.isRepeatable ? " repeatable" : "") + " on "
            + directive.locations.map(\.rawValue).joined(separator: " | ")
    }

    /// Arguments on one line, or one per line when any has a (non-empty) description.
    private func arguments(_ arguments: [InputValueDef], indentation: String = "") -> String {
        if arguments.isEmpty { return "" }
        if arguments.allSatisfy({ $0.description?.isEmpty ?? true }) {
            return "(" + arguments.map(inputValue).joined(separator: ", ") + ")"
        }
        let lines = arguments.enumerated().map { index, argument in
            Self.description(argument.description, indentation: "  " + indentation, firstInBlock: index == 0)
                + "  " + indentation + inputValue(argument)
        }
        return "(\n" + lines.joined(separator: "\n") + "\n" + indentation + ")"
    }

    private func inputValue(_ value: InputValueDef) -> String {
        var declaration = "\(value.name): \(value.type)"
        if let literal = Self.canonicalDefault(of: value, in: schema) { declaration += " = " + Printer.print(literal) }
        return declaration + Self.deprecated(value.deprecationReason)
    }

    // MARK: Pieces

    /// The default value as graphql-js keeps it (valueFromAST of the literal), written
    /// back as a literal (astFromValue); nil when there is no default or the literal
    /// does not coerce to the type (graphql-js then has `undefined`).
    static func canonicalDefault(of value: InputValueDef, in schema: GraphQLSchema) -> Value? {
        guard let literal = value.defaultValue else { return nil }
        let coercer = InputCoercer(schema: schema)
        guard let coerced = coercer.literal(literal, type: value.type, variables: [:]) else { return nil }
        return coercer.astFromValue(coerced, type: value.type)
    }

    /// Whether the default value is defined once coerced (graphql-js `defaultValue !== undefined`).
    static func hasDefault(_ value: InputValueDef, in schema: GraphQLSchema) -> Bool {
        guard let literal = value.defaultValue else { return false }
        return InputCoercer(schema: schema).literal(literal, type: value.type, variables: [:]) != nil
    }

    static func block(_ items: [String]) -> String {
        items.isEmpty ? "" : " {\n" + items.joined(separator: "\n") + "\n}"
    }

    static func deprecated(_ reason: String?) -> String {
        guard let reason else { return "" }
        if reason == defaultDeprecationReason { return " @deprecated" }
        return " @deprecated(reason: \(Printer.printString(reason)))"
    }

    static func specifiedBy(_ url: String?) -> String {
        url.map { " @specifiedBy(url: \(Printer.printString($0)))" } ?? ""
    }

    /// A description as a block string when it can be one, else a quoted string; each
    /// line indented, preceded by a blank line unless it is first in its block.
    static func description(_ text: String?, indentation: String = "", firstInBlock: Bool = true) -> String {
        guard let text else { return "" }
        let printed = BlockString.isPrintable(text) ? BlockString.print(text) : Printer.printString(text)
        let prefix = !indentation.isEmpty && !firstInBlock ? "\n" + indentation : indentation
        return prefix + printed.replacing("\n", with: "\n" + indentation) + "\n"
    }
}
