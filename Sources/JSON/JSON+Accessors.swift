extension JSON {
    /// The string, if this is `.string`.
    @inlinable public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The Boolean, if this is `.bool`.
    @inlinable public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, if this is `.int`.
    @inlinable public var intValue: Int? {
        if case .int(let value) = self { value } else { nil }
    }

    /// The number as a `Double`, if this is `.double` or `.int`.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }

    /// The elements, if this is `.array`.
    @inlinable public var arrayValue: [JSON]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The object, if this is `.object`.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }

    /// Whether this is `.null`.
    @inlinable public var isNull: Bool {
        if case .null = self { true } else { false }
    }

    /// The value for `key` if this is an object that has it, else `nil`.
    @inlinable public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// The element at `index` if this is an array and `index` is in bounds, else `nil`.
    @inlinable public subscript(index: Int) -> JSON? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSON: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String { serializedString() }
}
