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
///
/// Its members are inlinable: the engine builds and reads objects on every request, and a call
/// into another module cannot be specialised or inlined.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    // No default values: an inlinable init in another module would call out to create them.
    @usableFromInline var storedKeys: [String]
    @usableFromInline var storedValues: [JSON]

    /// The keys, in insertion order.
    @inlinable public var keys: [String] { storedKeys }
    /// The values, in the order of ``keys``.
    @inlinable public var values: [JSON] { storedValues }

    @inlinable
    public init() {
        storedKeys = []
        storedValues = []
    }

    /// An empty object with room for `minimumCapacity` keys.
    @inlinable
    public init(minimumCapacity: Int) {
        self.init()
        storedKeys.reserveCapacity(minimumCapacity)
        storedValues.reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    @inlinable public var count: Int { storedKeys.count }
    @inlinable public var isEmpty: Bool { storedKeys.isEmpty }

    /// The value for `key`; setting appends a new key or replaces the value in place.
    @inlinable
    public subscript(key: String) -> JSON? {
        get {
            guard let index = storedKeys.firstIndex(of: key) else { return nil }
            return storedValues[index]
        }
        set {
            if let index = storedKeys.firstIndex(of: key) {
                if let newValue { storedValues[index] = newValue } else {
                    storedKeys.remove(at: index)
                    storedValues.remove(at: index)
                }
            } else if let newValue {
                storedKeys.append(key)
                storedValues.append(newValue)
            }
        }
    }

    /// Builds an object from parallel arrays whose keys the caller guarantees are unique.
    @inlinable
    public init(uniqueKeys keys: [String], values: [JSON]) {
        storedKeys = keys
        storedValues = values
    }

    /// Appends without checking for an existing key (the caller guarantees uniqueness).
    @inlinable
    public mutating func appendUnchecked(_ key: String, _ value: JSON) {
        storedKeys.append(key)
        storedValues.append(value)
    }

    @inlinable
    public func makeIterator() -> Zip2Sequence<[String], [JSON]>.Iterator {
        zip(storedKeys, storedValues).makeIterator()
    }
}
