import Foundation

/// A JSON value: what the SDK sends as GraphQL variables and reads from responses, and the
/// WebAuthn options and credentials of the passkey calls. `Codable`, so `JSONEncoder` and
/// `JSONDecoder` turn it into and from `Data` (e.g. for a web view's `navigator.credentials`).
/// (The client's own small type: the SDK does not depend on the server's GraphQL engine.)
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; `nil` for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string, for a string value.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The boolean, for a boolean value.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, for an array value.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// A number that is an exact integer (error codes).
    public var int: Int? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 1e15 { return Int(value) }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}
