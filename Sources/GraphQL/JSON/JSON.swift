/// A JSON value whose objects keep their keys in insertion order, as GraphQL
/// responses require (spec §7.1: fields in the order they were requested).
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

/// An insertion-ordered JSON object. Lookup is linear, which is fastest for the
/// small objects GraphQL responses are made of.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSON] = []

    public init() {}

    /// An empty object with room for `minimumCapacity` keys.
    init(minimumCapacity: Int) {
        keys.reserveCapacity(minimumCapacity)
        values.reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The value for `key`; setting appends a new key or replaces the value in place.
    public subscript(key: String) -> JSON? {
        get {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue { values[index] = newValue } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Builds an object from parallel arrays whose keys the caller guarantees are unique.
    init(uniqueKeys keys: [String], values: [JSON]) {
        self.keys = keys
        self.values = values
    }

    /// Appends without checking for an existing key (the caller guarantees uniqueness).
    public mutating func appendUnchecked(_ key: String, _ value: JSON) {
        keys.append(key)
        values.append(value)
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSON]>.Iterator {
        zip(keys, values).makeIterator()
    }
}
