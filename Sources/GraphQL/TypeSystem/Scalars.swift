import JSON

/// How a scalar converts values (spec §3.5): results for responses (`serialize`),
/// variable values from JSON (`parseValue`), and literals in documents (`parseLiteral`,
/// given the operation's coerced variables for literals that contain variables).
public struct ScalarCoercion: Sendable {
    public var serialize: @Sendable (ResolvedValue) throws(CoercionError) -> JSON
    public var parseValue: @Sendable (JSON) throws(CoercionError) -> JSON
    public var parseLiteral: @Sendable (Value, JSONObject) throws(CoercionError) -> JSON

    public init(
        serialize: @escaping @Sendable (ResolvedValue) throws(CoercionError) -> JSON,
        parseValue: @escaping @Sendable (JSON) throws(CoercionError) -> JSON,
        parseLiteral: @escaping @Sendable (Value, JSONObject) throws(CoercionError) -> JSON
    ) {
        self.serialize = serialize
        self.parseValue = parseValue
        self.parseLiteral = parseLiteral
    }

    /// A custom scalar without rules: any JSON in and out, literals read as JSON.
    public static let passthrough = ScalarCoercion(
        serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
            guard let json = value.plainJSON else {
                throw CoercionError("Cannot serialize a value of type \(value.swiftTypeName) as a custom scalar.")
            }
            return json
        },
        parseValue: { (json: JSON) throws(CoercionError) -> JSON in json },
        parseLiteral: { (literal: Value, variables: JSONObject) throws(CoercionError) -> JSON in
            literal.untypedJSON(variables: variables)
        })
}

extension ResolvedValue {
    /// The value as JSON when it is made only of JSON-like cases.
    var plainJSON: JSON? {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .json(let value): return value
        case .list(let values):
            var out: [JSON] = []
            out.reserveCapacity(values.count)
            for value in values {
                guard let json = value.plainJSON else { return nil }
                out.append(json)
            }
            return .array(out)
        case .value: return nil
        }
    }

    var swiftTypeName: String {
        if case .value(let value) = self { return String(describing: type(of: value)) }
        return "JSON"
    }

    /// graphql-js's `inspect` of a result value, for coercion messages.
    var inspected: String {
        if let json = plainJSON { return json.inspected }
        return "<\(swiftTypeName)>"
    }
}

extension Value {
    /// The literal as JSON without a type (graphql-js valueFromASTUntyped); variables
    /// are replaced by their values, absent variables by null.
    public func untypedJSON(variables: JSONObject) -> JSON {
        switch kind {
        case .variable(let name): return variables[name] ?? .null
        case .int(let text): return Int(text).map(JSON.int) ?? .double(Double(text) ?? 0)
        case .float(let text): return .double(Double(text) ?? 0)
        case .string(let value, _): return .string(value)
        case .boolean(let value): return .bool(value)
        case .null: return .null
        case .enumValue(let name): return .string(name)
        case .list(let values): return .array(values.map { $0.untypedJSON(variables: variables) })
        case .object(let fields):
            var object = JSONObject()
            for field in fields { object[field.name.value] = field.value.untypedJSON(variables: variables) }
            return .object(object)
        }
    }
}

extension JSON {
    /// graphql-js's `inspect`: strings quoted, objects as `{ a: 1 }`, lists as `[1, 2]`.
    public var inspected: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return formatNumber(value)
        case .string(let value): return Printer.printString(value)
        case .array(let values): return values.isEmpty ? "[]" : "[" + values.map(\.inspected).joined(separator: ", ") + "]"
        case .object(let object):
            if object.isEmpty { return "{}" }
            return "{ " + object.map { $0.0 + ": " + $0.1.inspected }.joined(separator: ", ") + " }"
        }
    }
}

/// A double as JavaScript prints it: integral values without a fraction.
func formatNumber(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    if value == value.rounded(), abs(value) < 1e21 { return String(Int64(value)) }
    return String(value)
}

/// The built-in scalars (spec §3.5.1–3.5.5), with graphql-js's coercion rules and messages.
public enum BuiltInScalars {
    static let int32 = Int(Int32.min)...Int(Int32.max)

    public static let int = ScalarType(
        name: "Int",
        description: "The `Int` scalar type represents non-fractional signed whole numeric values. Int can represent values between -(2^31) and 2^31 - 1.",
        coercion: ScalarCoercion(
            serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
                let number: Double
                switch value {
                case .int(let int):
                    guard int32.contains(int) else {
                        throw CoercionError("Int cannot represent non 32-bit signed integer value: \(int)")
                    }
                    return .int(int)
                case .bool(let bool): return .int(bool ? 1 : 0)
                case .double(let double): number = double
                case .string(let string) where !string.isEmpty && Double(string) != nil: number = Double(string)!
                default: throw CoercionError("Int cannot represent non-integer value: \(value.inspected)")
                }
                guard number.isFinite, number == number.rounded() else {
                    throw CoercionError("Int cannot represent non-integer value: \(value.inspected)")
                }
                guard number >= -2147483648, number <= 2147483647 else {
                    throw CoercionError("Int cannot represent non 32-bit signed integer value: \(value.inspected)")
                }
                return .int(Int(number))
            },
            parseValue: { (json: JSON) throws(CoercionError) -> JSON in
                switch json {
                case .int(let int):
                    guard int32.contains(int) else {
                        throw CoercionError("Int cannot represent non 32-bit signed integer value: \(int)")
                    }
                    return .int(int)
                case .double(let double) where double.isFinite && double == double.rounded():
                    guard double >= -2147483648, double <= 2147483647 else {
                        throw CoercionError("Int cannot represent non 32-bit signed integer value: \(formatNumber(double))")
                    }
                    return .int(Int(double))
                default:
                    throw CoercionError("Int cannot represent non-integer value: \(json.inspected)")
                }
            },
            parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
                guard case .int(let text) = literal.kind else {
                    throw CoercionError("Int cannot represent non-integer value: \(print(literal))")
                }
                guard let int = Int(text), int32.contains(int) else {
                    throw CoercionError("Int cannot represent non 32-bit signed integer value: \(text)")
                }
                return .int(int)
            }))

    public static let float = ScalarType(
        name: "Float",
        description: "The `Float` scalar type represents signed double-precision fractional values as specified by [IEEE 754](https://en.wikipedia.org/wiki/IEEE_floating_point).",
        coercion: ScalarCoercion(
            serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
                switch value {
                case .int(let int): return .double(Double(int))
                case .double(let double) where double.isFinite: return .double(double)
                case .bool(let bool): return .double(bool ? 1 : 0)
                case .string(let string) where !string.isEmpty:
                    if let double = Double(string), double.isFinite { return .double(double) }
                default: break
                }
                throw CoercionError("Float cannot represent non numeric value: \(value.inspected)")
            },
            parseValue: { (json: JSON) throws(CoercionError) -> JSON in
                switch json {
                case .int(let int): return .double(Double(int))
                case .double(let double) where double.isFinite: return .double(double)
                default: throw CoercionError("Float cannot represent non numeric value: \(json.inspected)")
                }
            },
            parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
                switch literal.kind {
                case .int(let text), .float(let text):
                    guard let double = Double(text), double.isFinite else {
                        throw CoercionError("Float cannot represent non numeric value: \(text)")
                    }
                    return .double(double)
                default:
                    throw CoercionError("Float cannot represent non numeric value: \(print(literal))")
                }
            }))

    public static let string = ScalarType(
        name: "String",
        description: "The `String` scalar type represents textual data, represented as UTF-8 character sequences. The String type is most often used by GraphQL to represent free-form human-readable text.",
        coercion: ScalarCoercion(
            serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
                switch value {
                case .string(let string): return .string(string)
                case .bool(let bool): return .string(bool ? "true" : "false")
                case .int(let int): return .string(String(int))
                case .double(let double) where double.isFinite: return .string(formatNumber(double))
                default: throw CoercionError("String cannot represent value: \(value.inspected)")
                }
            },
            parseValue: { (json: JSON) throws(CoercionError) -> JSON in
                guard case .string = json else {
                    throw CoercionError("String cannot represent a non string value: \(json.inspected)")
                }
                return json
            },
            parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
                guard case .string(let string, _) = literal.kind else {
                    throw CoercionError("String cannot represent a non string value: \(print(literal))")
                }
                return .string(string)
            }))

    public static let boolean = ScalarType(
        name: "Boolean",
        description: "The `Boolean` scalar type represents `true` or `false`.",
        coercion: ScalarCoercion(
            serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
                switch value {
                case .bool(let bool): return .bool(bool)
                case .int(let int): return .bool(int != 0)
                case .double(let double) where double.isFinite: return .bool(double != 0)
                default: throw CoercionError("Boolean cannot represent a non boolean value: \(value.inspected)")
                }
            },
            parseValue: { (json: JSON) throws(CoercionError) -> JSON in
                guard case .bool = json else {
                    throw CoercionError("Boolean cannot represent a non boolean value: \(json.inspected)")
                }
                return json
            },
            parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
                guard case .boolean(let bool) = literal.kind else {
                    throw CoercionError("Boolean cannot represent a non boolean value: \(print(literal))")
                }
                return .bool(bool)
            }))

    public static let id = ScalarType(
        name: "ID",
        description: "The `ID` scalar type represents a unique identifier, often used to refetch an object or as key for a cache. The ID type appears in a JSON response as a String; however, it is not intended to be human-readable. When expected as an input type, any string (such as `\"4\"`) or integer (such as `4`) input value will be accepted as an ID.",
        coercion: ScalarCoercion(
            serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
                switch value {
                case .string(let string): return .string(string)
                case .int(let int): return .string(String(int))
                case .double(let double) where double.isFinite && double == double.rounded():
                    return .string(formatNumber(double))
                default: throw CoercionError("ID cannot represent value: \(value.inspected)")
                }
            },
            parseValue: { (json: JSON) throws(CoercionError) -> JSON in
                switch json {
                case .string: return json
                case .int(let int): return .string(String(int))
                case .double(let double) where double.isFinite && double == double.rounded():
                    return .string(formatNumber(double))
                default: throw CoercionError("ID cannot represent value: \(json.inspected)")
                }
            },
            parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
                switch literal.kind {
                case .string(let string, _): return .string(string)
                case .int(let text): return .string(text)
                default:
                    throw CoercionError("ID cannot represent a non-string and non-integer value: \(print(literal))")
                }
            }))

    /// All five, by name.
    public static let all: [String: ScalarType] = [
        "Int": int, "Float": float, "String": string, "Boolean": boolean, "ID": id,
    ]
}

/// Which of the five built-in scalar instances a scalar type is, for completing a field's
/// value without a call through its coercion closures when the value already is what the
/// scalar serialises it to (a string for `String` and `ID`, a Boolean for `Boolean`, an
/// integer in range for `Int`, a finite number for `Float`). Any other value takes
/// `ScalarCoercion.serialize`, with its messages.
enum BuiltInScalar: Sendable {
    case int, float, string, boolean, id

    /// The built-in `scalar` is, by identity (nil for custom scalars, whatever their name).
    init?(_ scalar: ScalarType) {
        if scalar === BuiltInScalars.string {
            self = .string
        } else if scalar === BuiltInScalars.id {
            self = .id
        } else if scalar === BuiltInScalars.boolean {
            self = .boolean
        } else if scalar === BuiltInScalars.int {
            self = .int
        } else if scalar === BuiltInScalars.float {
            self = .float
        } else {
            return nil
        }
    }

    /// `serialize` of a JSON value when the value is already serialised; nil otherwise.
    func serialized(_ json: JSON) -> JSON? {
        switch (self, json) {
        case (.string, .string), (.id, .string), (.boolean, .bool): return json
        case (.int, .int(let int)) where BuiltInScalars.int32.contains(int): return json
        case (.float, .double(let double)) where double.isFinite: return json
        default: return nil
        }
    }

    /// `serialize` of a resolved value when it is a plain case that is already serialised;
    /// nil otherwise. Switches on the value alone: a tuple of the two would copy the value.
    func serialized(_ value: ResolvedValue) -> JSON? {
        switch value {
        case .string(let string): return self == .string || self == .id ? .string(string) : nil
        case .bool(let bool): return self == .boolean ? .bool(bool) : nil
        case .int(let int): return self == .int && BuiltInScalars.int32.contains(int) ? .int(int) : nil
        case .double(let double): return self == .float && double.isFinite ? .double(double) : nil
        default: return nil
        }
    }
}
