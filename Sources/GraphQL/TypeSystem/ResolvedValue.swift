import JSON

/// What a resolver returns for a field, before the engine completes it against the
/// field's type (spec §6.4.3 Value Completion).
public enum ResolvedValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// A JSON value, for scalars such as `Object`, or an object whose fields are its keys.
    case json(JSON)
    case list([ResolvedValue])
    /// A Swift value: the source of an object type's fields, or a custom scalar's value.
    ///
    /// Indirect, so held in a box of its own: an existential of a non-class protocol makes the
    /// enum that holds it one the compiler copies and destroys through its type's value
    /// witnesses, for every case, each time a value is passed along; with the box, a copy is a
    /// retain.
    indirect case value(any Sendable)

    /// A JSON value as a resolved value (objects stay JSON so fields resolve by key).
    public init(_ json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .list(values.map(ResolvedValue.init))
        case .object: self = .json(json)
        }
    }
}

/// An error in coercing a value to or from a scalar or enum: its message only; the
/// engine adds locations and paths.
public struct CoercionError: Error, Sendable, Hashable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
