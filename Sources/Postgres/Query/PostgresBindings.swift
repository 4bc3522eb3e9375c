/// The bound parameters of a query, already in binary wire format.
public struct PostgresBindings: Sendable, Hashable {
    /// All parameter bytes, back to back.
    var bytes: [UInt8] = []
    /// Start of each parameter in `bytes`, or -1 for NULL.
    var offsets: [Int] = []
    /// Length of each parameter (0 for NULL).
    var lengths: [Int32] = []
    /// Type OID of each parameter.
    var types: [UInt32] = []

    /// No parameters.
    public init() {}

    /// The number of parameters.
    public var count: Int { types.count }

    /// Appends a parameter; it becomes `$<count>`.
    public mutating func append<Value: PostgresEncodable>(_ value: Value) {
        let start = bytes.count
        if value.encodeBinary(into: &bytes) {
            offsets.append(start)
            lengths.append(Int32(bytes.count - start))
        } else {
            bytes.removeSubrange(start...)
            offsets.append(-1)
            lengths.append(0)
        }
        types.append(Value.postgresDataType.oid)
    }

    /// Appends a parameter given as an existential.
    public mutating func append(any value: any PostgresEncodable) {
        func open<Value: PostgresEncodable>(_ value: Value) { append(value) }
        open(value)
    }
}
