/// Prints a syntax tree as canonical GraphQL text, in graphql-js's layout:
/// two-space indentation, one selection per line, arguments wrapped onto their own
/// lines when a field would exceed 80 characters. `parse(print(ast)) == ast`.
public func print(_ document: Document) -> String {
    Printer.join(document.definitions.map(Printer.print), "\n\n")
}

/// Prints one definition.
public func print(_ definition: Definition) -> String { Printer.print(definition) }

/// Prints one value literal.
public func print(_ value: Value) -> String { Printer.print(value) }

/// Prints one type reference.
public func print(_ type: TypeReference) -> String { type.description }

/// Prints one selection set.
public func print(_ selectionSet: SelectionSet) -> String { Printer.print(selectionSet) }

enum Printer {
    static let maxLineLength = 80

    static func print(_ definition: Definition) -> String {
        switch definition {
        case .operation(let node): print(node)
        case .fragment(let node): print(node)
        case .schema(let node): print(node, extension: false)
        case .schemaExtension(let node): print(node, extension: true)
        case .type(let node): print(node, extension: false)
        case .typeExtension(let node): print(node, extension: true)
        case .directive(let node): print(node)
        }
    }

    // MARK: Executable definitions

    static func print(_ node: OperationDefinition) -> String {
        let isShorthand = node.operation == .query && node.name == nil && node.variableDefinitions.isEmpty
            && node.directives.isEmpty && node.description == nil
        if isShorthand { return print(node.selectionSet) }
        let variables = wrap("(", join(node.variableDefinitions.map(print), ", "), ")")
        let head = join([node.operation.rawValue, join([node.name?.value ?? "", variables], "")], " ")
        return description(node.description) + join([head, directives(node.directives), print(node.selectionSet)], " ")
    }

    static func print(_ node: VariableDefinition) -> String {
        description(node.description, inline: true) + "$" + node.variable.value + ": " + node.type.description
            + wrap(" = ", node.defaultValue.map(print) ?? "", "") + wrap(" ", directives(node.directives), "")
    }

    static func print(_ node: SelectionSet) -> String { block(node.selections.map(print)) }

    static func print(_ node: Selection) -> String {
        switch node {
        case .field(let field):
            let prefix = wrap("", field.alias?.value ?? "", ": ") + field.name.value
            let arguments = field.arguments.map(print)
            var line = prefix + wrap("(", join(arguments, ", "), ")")
            if line.unicodeScalars.count > maxLineLength {
                line = prefix + wrap("(\n", indent(join(arguments, "\n")), "\n)")
            }
            return join([line, directives(field.directives), field.selectionSet.map(print) ?? ""], " ")
        case .fragmentSpread(let spread):
            return "..." + spread.name.value + wrap(" ", directives(spread.directives), "")
        case .inlineFragment(let fragment):
            return join(
                ["...", wrap("on ", fragment.typeCondition?.value ?? "", ""), directives(fragment.directives),
                 print(fragment.selectionSet)], " ")
        }
    }

    static func print(_ node: Argument) -> String { node.name.value + ": " + print(node.value) }

    static func print(_ node: FragmentDefinition) -> String {
        description(node.description) + "fragment " + node.name.value + " on " + node.typeCondition.value + " "
            + wrap("", directives(node.directives), " ") + print(node.selectionSet)
    }

    // MARK: Values

    static func print(_ value: Value) -> String {
        switch value.kind {
        case .variable(let name): "$" + name
        case .int(let text), .float(let text): text
        case .string(let string, let block): block ? BlockString.print(string) : printString(string)
        case .boolean(let bool): bool ? "true" : "false"
        case .null: "null"
        case .enumValue(let name): name
        case .list(let values): "[" + join(values.map(print), ", ") + "]"
        case .object(let fields): "{" + join(fields.map { $0.name.value + ": " + print($0.value) }, ", ") + "}"
        }
    }

    /// A double-quoted string with JSON-style escapes for quotes, backslashes and
    /// control characters.
    static func printString(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func print(_ node: Directive) -> String {
        "@" + node.name.value + wrap("(", join(node.arguments.map(print), ", "), ")")
    }

    static func directives(_ nodes: [Directive]) -> String { join(nodes.map(print), " ") }

    // MARK: Type system

    static func print(_ node: SchemaDefinition, extension isExtension: Bool) -> String {
        let operations = node.operationTypes.map { $0.operation.rawValue + ": " + $0.type.value }
        return description(node.description)
            + join([isExtension ? "extend schema" : "schema", directives(node.directives), block(operations)], " ")
    }

    static func print(_ node: TypeDefinition, extension isExtension: Bool) -> String {
        let keyword: String
        var parts: [String]
        switch node {
        case .scalar(let type):
            keyword = "scalar"
            parts = [type.name.value, directives(type.directives)]
        case .object(let type), .interface(let type):
            if case .object = node { keyword = "type" } else { keyword = "interface" }
            parts = [
                type.name.value, wrap("implements ", join(type.interfaces.map(\.value), " & "), ""),
                directives(type.directives), block(type.fields.map(print)),
            ]
        case .union(let type):
            keyword = "union"
            parts = [type.name.value, directives(type.directives), wrap("= ", join(type.types.map(\.value), " | "), "")]
        case .enumType(let type):
            keyword = "enum"
            parts = [type.name.value, directives(type.directives), block(type.values.map(print))]
        case .inputObject(let type):
            keyword = "input"
            parts = [type.name.value, directives(type.directives), block(type.fields.map(print))]
        }
        return description(node.description) + join([isExtension ? "extend " + keyword : keyword] + parts, " ")
    }

    static func print(_ node: FieldDefinition) -> String {
        description(node.description) + node.name.value + argumentDefinitions(node.arguments) + ": "
            + node.type.description + wrap(" ", directives(node.directives), "")
    }

    static func print(_ node: InputValueDefinition) -> String {
        description(node.description)
            + join(
                [node.name.value + ": " + node.type.description, wrap("= ", node.defaultValue.map(print) ?? "", ""),
                 directives(node.directives)], " ")
    }

    static func print(_ node: EnumValueDefinition) -> String {
        description(node.description) + join([node.name.value, directives(node.directives)], " ")
    }

    static func print(_ node: DirectiveDefinition) -> String {
        description(node.description) + "directive @" + node.name.value + argumentDefinitions(node.arguments)
            + (node.isRepeatable ? " repeatable" : "") + " on " + join(node.locations.map(\.value), " | ")
    }

    /// Argument definitions on one line, or one per line when any of them spans lines
    /// (a description does).
    static func argumentDefinitions(_ arguments: [InputValueDefinition]) -> String {
        let printed = arguments.map(print)
        if printed.contains(where: { $0.contains("\n") }) {
            return wrap("(\n", indent(join(printed, "\n")), "\n)")
        }
        return wrap("(", join(printed, ", "), ")")
    }

    /// A description followed by a new line (or a space, inline), or nothing.
    static func description(_ node: StringValue?, inline: Bool = false) -> String {
        guard let node else { return "" }
        let text = node.block ? BlockString.print(node.value) : printString(node.value)
        return text + (inline ? " " : "\n")
    }

    // MARK: Layout helpers

    static func join(_ parts: [String], _ separator: String) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: separator)
    }

    static func wrap(_ start: String, _ text: String, _ end: String) -> String {
        text.isEmpty ? "" : start + text + end
    }

    static func block(_ lines: [String]) -> String {
        lines.isEmpty ? "" : "{\n" + indent(join(lines, "\n")) + "\n}"
    }

    static func indent(_ text: String) -> String {
        text.isEmpty ? "" : "  " + text.replacing("\n", with: "\n  ")
    }
}
