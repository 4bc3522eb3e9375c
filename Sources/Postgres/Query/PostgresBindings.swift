/// The bound parameters of a query, already in binary wire format.
public struct PostgresBindings: Sendable, Hashable {
    /// All parameter bytes, back to back.
    @usableFromInline var bytes: [UInt8] = []
    /// Start of each parameter in `bytes`, or -1 for NULL.
    @usableFromInline var offsets: [Int] = []
    /// Length of each parameter (0 for NULL).
    @usableFromInline var lengths: [Int32] = []
    /// Type OID of each parameter.
    @usableFromInline var types: [UInt32] = []

    /// No parameters.
    public init() {}

    /// No parameters yet, with room for `parameters` of `byteCount` bytes in all: a statement of
    /// many parameters then allocates each array once.
    public init(reservingCapacity parameters: Int, bytes byteCount: Int) {
        bytes.reserveCapacity(byteCount)
        offsets.reserveCapacity(parameters)
        lengths.reserveCapacity(parameters)
        types.reserveCapacity(parameters)
    }

    /// The number of parameters.
    public var count: Int { types.count }

    /// Appends a parameter; it becomes `$<count>`. Inlinable, so that each call site's concrete
    /// type is specialised rather than encoded through the protocol's witness table.
    @inlinable
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
