import JSON

// Input coercion (spec §6.1.2 CoerceVariableValues, §6.4.1 CoerceArgumentValues,
// §3.11 Input Coercion) with graphql-js's messages. Coerced values are JSON.

/// Looks up input types by name for coercion.
struct InputCoercer {
    let schema: GraphQLSchema

    /// One problem coercing a JSON input: the path inside the value, the offending
    /// value, and why.
    struct Problem {
        var path: [PathElement]
        var value: JSON
        var message: String
    }

    /// Coerces a JSON value (a variable's) to `type`; problems are reported, not thrown,
    /// so that every problem of a value is listed.
    func coerce(_ value: JSON, to type: TypeRef, problems: inout [Problem]) -> JSON {
        var path: [PathElement] = []
        return coerce(value, to: type, path: &path, problems: &problems)
    }

    /// `coerce(_:to:problems:)` at `path` inside the variable: one array, extended and
    /// shortened in place as the value is walked (a problem keeps a copy).
    private func coerce(_ value: JSON, to type: TypeRef, path: inout [PathElement], problems: inout [Problem]) -> JSON {
        switch type {
        case .nonNull(let inner):
            if case .null = value {
                problems.append(Problem(path: path, value: value, message: "Expected non-nullable type \"\(type)\" not to be null."))
                return .null
            }
            return coerce(value, to: inner, path: &path, problems: &problems)
        case .list(let inner):
            if case .null = value { return .null }
            if case .array(let items) = value {
                var out: [JSON] = []
                out.reserveCapacity(items.count)
                for (index, item) in items.enumerated() {
                    path.append(.index(index))
                    out.append(coerce(item, to: inner, path: &path, problems: &problems))
                    path.removeLast()
                }
                return .array(out)
            }
            return .array([coerce(value, to: inner, path: &path, problems: &problems)])
        case .named(let name):
            if case .null = value { return .null }
            guard let named = schema.type(name) else {
                problems.append(Problem(path: path, value: value, message: "Unknown type \"\(name)\"."))
                return .null
            }
            switch named {
            case .scalar(let scalar):
                do {
                    return try scalar.coercion.parseValue(value)
                } catch {
                    problems.append(Problem(path: path, value: value, message: error.message))
                    return .null
                }
            case .enumType(let enumType):
                guard case .string(let string) = value else {
                    let text = value.inspected
                    let suggestions = didYouMean(Suggestions.list(text, enumType.values.map(\.name)), sub: "the enum value")
                    problems.append(Problem(path: path, value: value, message: "Enum \"\(enumType.name)\" cannot represent non-string value: \(text)." + suggestions))
                    return .null
                }
                guard enumType.value(string) != nil else {
                    let suggestions = didYouMean(Suggestions.list(string, enumType.values.map(\.name)), sub: "the enum value")
                    problems.append(Problem(path: path, value: value, message: "Value \"\(string)\" does not exist in \"\(enumType.name)\" enum." + suggestions))
                    return .null
                }
                return value
            case .inputObject(let input):
                guard case .object(let object) = value else {
                    problems.append(Problem(path: path, value: value, message: "Expected type \"\(input.name)\" to be an object."))
                    return .null
                }
                var coerced = JSONObject(minimumCapacity: input.fields.count)
                // The value's keys that name a field: when all do, none is unknown.
                var known = 0
                // Fields are read in place: copying one retains each of its strings.
                for index in input.fields.indices {
                    let name = input.fields[index].name
                    if let fieldValue = object[name] {
                        known += 1
                        path.append(.key(name))
                        coerced.appendUnchecked(name, coerce(fieldValue, to: input.fields[index].type, path: &path, problems: &problems))
                        path.removeLast()
                    } else if let defaultValue = input.fields[index].defaultValue {
                        coerced.appendUnchecked(name, literal(defaultValue, type: input.fields[index].type, variables: [:]) ?? .null)
                    } else if input.fields[index].type.isNonNull {
                        problems.append(Problem(path: path, value: value, message: "Field \"\(name)\" of required type \"\(input.fields[index].type)\" was not provided."))
                    }
                }
                if known < object.count {
                    for key in object.keys where !input.fields.contains(where: { $0.name == key }) {
                        let suggestions = Suggestions.didYouMean(Suggestions.list(key, input.fields.map(\.name)))
                        problems.append(Problem(path: path, value: value, message: "Field \"\(key)\" is not defined by type \"\(input.name)\"." + suggestions))
                    }
                }
                // graphql-js counts the coerced fields (unknown keys are not among them), and
                // reports a null field at the field's own path.
                if input.isOneOf {
                    if coerced.count != 1 {
                        problems.append(Problem(path: path, value: value, message: "Exactly one key must be specified for OneOf type \"\(input.name)\"."))
                    } else if case .null = coerced.values[0] {
                        problems.append(Problem(path: path + [.key(coerced.keys[0])], value: .null, message: "Field \"\(coerced.keys[0])\" must be non-null."))
                    }
                }
                return .object(coerced)
            case .object, .interface, .union:
                problems.append(Problem(path: path, value: value, message: "Type \"\(name)\" is not an input type."))
                return .null
            }
        }
    }

    /// graphql-js valueFromAST: a literal coerced to `type`, or nil when it is invalid.
    /// A variable absent from `variables` makes the value invalid (callers treat
    /// absence before calling, as the spec's algorithms do).
    func literal(_ node: Value, type: TypeRef, variables: JSONObject) -> JSON? {
        if case .variable(let name) = node.kind {
            guard let value = variables[name] else { return nil }
            if case .null = value, type.isNonNull { return nil }
            return value
        }
        switch type {
        case .nonNull(let inner):
            if case .null = node.kind { return nil }
            return literal(node, type: inner, variables: variables)
        case .list(let inner):
            if case .null = node.kind { return .null }
            guard case .list(let items) = node.kind else {
                return literal(node, type: inner, variables: variables).map { .array([$0]) }
            }
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for item in items {
                if case .variable(let name) = item.kind, variables[name] == nil {
                    if inner.isNonNull { return nil }
                    out.append(.null)
                    continue
                }
                guard let value = literal(item, type: inner, variables: variables) else { return nil }
                out.append(value)
            }
            return .array(out)
        case .named(let name):
            if case .null = node.kind { return .null }
            guard let named = schema.type(name) else { return nil }
            switch named {
            case .scalar(let scalar):
                return try? scalar.coercion.parseLiteral(node, variables)
            case .enumType(let enumType):
                guard case .enumValue(let value) = node.kind, enumType.value(value) != nil else { return nil }
                return .string(value)
            case .inputObject(let input):
                guard case .object(let fields) = node.kind else { return nil }
                var coerced = JSONObject()
                for field in input.fields {
                    let fieldNode = fields.first { $0.name.value == field.name }
                    let isMissing: Bool
                    if let fieldNode {
                        if case .variable(let variable) = fieldNode.value.kind { isMissing = variables[variable] == nil } else { isMissing = false }
                    } else {
                        isMissing = true
                    }
                    if isMissing {
                        if let defaultValue = field.defaultValue {
                            guard let value = literal(defaultValue, type: field.type, variables: [:]) else { return nil }
                            coerced.appendUnchecked(field.name, value)
                        } else if field.type.isNonNull {
                            return nil
                        }
                        continue
                    }
                    guard let value = literal(fieldNode!.value, type: field.type, variables: variables) else { return nil }
                    coerced.appendUnchecked(field.name, value)
                }
                if input.isOneOf {
                    guard coerced.count == 1, fields.count == 1 else { return nil }
                    if case .null = coerced.values[0] { return nil }
                }
                return .object(coerced)
            case .object, .interface, .union:
                return nil
            }
        }
    }

    /// graphql-js astFromValue: the canonical literal for a coerced value, or nil
    /// when the value cannot be written for `type`.
    func astFromValue(_ value: JSON, type: TypeRef) -> Value? {
        switch type {
        case .nonNull(let inner):
            if case .null = value { return nil }
            return astFromValue(value, type: inner)
        case .list(let inner):
            if case .null = value { return Value(.null) }
            if case .array(let items) = value {
                return Value(.list(items.compactMap { astFromValue($0, type: inner) }))
            }
            return astFromValue(value, type: inner)
        case .named(let name):
            if case .null = value { return Value(.null) }
            guard let named = schema.type(name) else { return nil }
            switch named {
            case .inputObject(let input):
                guard case .object(let object) = value else { return nil }
                var fields: [ObjectField] = []
                for field in input.fields {
                    if let fieldValue = object[field.name], let node = astFromValue(fieldValue, type: field.type) {
                        fields.append(ObjectField(name: Name(field.name), value: node))
                    }
                }
                return Value(.object(fields))
            case .enumType:
                guard case .string(let string) = value else { return nil }
                return Value(.enumValue(string))
            case .scalar(let scalar):
                let serialized: JSON
                do { serialized = try scalar.coercion.serialize(ResolvedValue(value)) } catch { return nil }
                switch serialized {
                case .bool(let bool): return Value(.boolean(bool))
                case .int(let int): return Value(.int(String(int)))
                case .double(let double):
                    let text = formatNumber(double)
                    return Value(text.contains(where: { $0 == "." || $0 == "e" }) ? .float(text) : .int(text))
                case .string(let string):
                    if name == "ID", Self.isIntegerString(string) { return Value(.int(string)) }
                    return Value(.string(string, block: false))
                case .null: return Value(.null)
                case .array, .object: return jsonLiteral(serialized)
                }
            case .object, .interface, .union:
                return nil
            }
        }
    }

    /// graphql-js's integerStringRegExp `^-?(?:0|[1-9][0-9]*)$`: IDs that print as Int
    /// literals (any length, and `-0`).
    private static func isIntegerString(_ string: String) -> Bool {
        var digits = Substring(string)
        if digits.first == "-" { digits = digits.dropFirst() }
        guard let first = digits.first, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return first != "0" || digits.count == 1
    }

    /// A JSON value as an untyped literal (for custom scalars such as `Object`).
    private func jsonLiteral(_ json: JSON) -> Value {
        switch json {
        case .null: return Value(.null)
        case .bool(let bool): return Value(.boolean(bool))
        case .int(let int): return Value(.int(String(int)))
        case .double(let double): return Value(.float(formatNumber(double)))
        case .string(let string): return Value(.string(string, block: false))
        case .array(let items): return Value(.list(items.map(jsonLiteral)))
        case .object(let object):
            return Value(.object(object.map { ObjectField(name: Name($0.0), value: jsonLiteral($0.1)) }))
        }
    }
}
