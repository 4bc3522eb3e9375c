/// An ordered list of HTTP header fields with case-insensitive name lookup.
///
/// Order and duplicates are kept exactly as received (or as added); names keep
/// their original spelling. Lookup compares names ASCII case-insensitively, as
/// RFC 9110 §5.1 requires.
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field: a name and its value.
    public struct Field: Sendable, Hashable {
        /// The field name as spelled by the sender.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from name/value pairs in order.
    public init(_ pairs: [(String, String)]) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of the field named `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value of the field named `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesEqual($0.name, name) }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` (case-insensitive) with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// ASCII case-insensitive comparison of two field names.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        // Native strings are contiguous: compare their bytes in place (a `zip` of the two
        // UTF-8 views decodes them index by index, far slower on this per-request path).
        let fast = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where lowercased(x[i]) != lowercased(y[i]) { return false }
                return true
            }
        }
        if let fast, let result = fast { return result }
        for (x, y) in zip(a, b) where lowercased(x) != lowercased(y) {
            return false
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

extension HTTPHeaders: RandomAccessCollection {
    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> Field { fields[position] }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates headers from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}
