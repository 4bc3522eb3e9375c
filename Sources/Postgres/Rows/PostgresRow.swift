/// One row of a ``PostgresResult``; keeps the result alive.
public struct PostgresRow: Sendable {
    /// The result this row belongs to.
    public let result: PostgresResult
    /// The row's index in the result.
    public let index: Int

    /// Decodes the column at `column` (0-based).
    public func decode<Value: PostgresDecodable>(_ type: Value.Type = Value.self, at column: Int)
        throws(PostgresError) -> Value
    {
        try result.decode(type, row: index, column: column)
    }

    /// Calls `body` with the column's bytes at `column` (0-based) as the server sent them (binary
    /// format: UTF-8 for text), nil for NULL. The bytes are the result's: valid only inside `body`.
    public func withBytes<Value>(at column: Int, _ body: (UnsafeRawBufferPointer?) throws -> Value) rethrows -> Value {
        try result.withBytes(row: index, column: column, body)
    }

    /// Decodes the column named `name` (exact match; names as PostgreSQL reports them, lower case
    /// unless quoted).
    public func decode<Value: PostgresDecodable>(_ name: String, as type: Value.Type = Value.self)
        throws(PostgresError) -> Value
    {
        guard let column = result.columnIndex(name) else {
            throw PostgresError(.decode, message: "no column named \"\(name)\" in the result")
        }
        return try result.decode(type, row: index, column: column)
    }
}
