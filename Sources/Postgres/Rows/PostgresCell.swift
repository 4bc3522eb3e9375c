/// One column value of one row, in binary wire format, handed to ``PostgresDecodable/decode(from:)``.
///
/// `bytes` points into the result's memory: valid only during the `decode` call.
public struct PostgresCell {
    /// The value's bytes, or `nil` for SQL NULL.
    public let bytes: UnsafeRawBufferPointer?
    /// The column's type.
    public let dataType: PostgresDataType
    /// The column's name as libpq keeps it, read only for an error message: most decodes never need it.
    let name: UnsafePointer<CChar>

    /// The column's name (for error messages).
    public var columnName: String { String(cString: name) }

    /// Whether the value is SQL NULL.
    public var isNull: Bool { bytes == nil }

    /// The bytes, or a decode error naming the column when the value is NULL.
    public func requireBytes(as swiftType: String) throws(PostgresError) -> UnsafeRawBufferPointer {
        guard let bytes else {
            throw PostgresError(
                .decode, message: "column \"\(columnName)\" (\(dataType)) is NULL; expected non-optional \(swiftType)")
        }
        return bytes
    }

    /// A decode error for a column whose type cannot become `swiftType`.
    public func typeMismatch(_ swiftType: String) -> PostgresError {
        PostgresError(.decode, message: "column \"\(columnName)\" has type \(dataType); cannot decode as \(swiftType)")
    }

    /// A decode error with a custom reason (never include the value).
    public func decodeError(_ reason: String) -> PostgresError {
        PostgresError(.decode, message: "column \"\(columnName)\" (\(dataType)) \(reason)")
    }

    @inline(__always)
    func bigEndian<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeRawBufferPointer, as swiftType: String)
        throws(PostgresError) -> T
    {
        guard bytes.count == MemoryLayout<T>.size else {
            throw decodeError("has \(bytes.count) bytes, expected \(MemoryLayout<T>.size); cannot decode as \(swiftType)")
        }
        return T(bigEndian: bytes.loadUnaligned(as: T.self))
    }

    /// Any integer column (`int2`, `int4`, `int8`) as Int64.
    func integer(as swiftType: String) throws(PostgresError) -> Int64 {
        let bytes = try requireBytes(as: swiftType)
        switch dataType {
        case .int8: return try bigEndian(Int64.self, bytes, as: swiftType)
        case .int4: return Int64(try bigEndian(Int32.self, bytes, as: swiftType))
        case .int2: return Int64(try bigEndian(Int16.self, bytes, as: swiftType))
        case .oidType: return Int64(try bigEndian(UInt32.self, bytes, as: swiftType))
        default: throw typeMismatch(swiftType)
        }
    }
}
