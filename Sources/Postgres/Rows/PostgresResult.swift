internal import CLibPQ
import Foundation

/// The rows of one statement's result, decoded lazily from libpq's result in binary format.
///
/// Owns one `PGresult`, freed by `deinit` (`PQclear`). A `PGresult` is read-only once made, so a
/// result may be read from any thread (hence `@unchecked Sendable`); it does not reference the
/// connection that produced it.
public final class PostgresResult: @unchecked Sendable, RandomAccessCollection {
    private let handle: OpaquePointer
    private let fieldCount: Int
    /// The number of rows.
    public let count: Int

    init(handle: OpaquePointer) {
        self.handle = handle
        self.fieldCount = Int(PQnfields(handle))
        self.count = Int(PQntuples(handle))
    }

    /// Column names, in order.
    public var columnNames: [String] {
        (0..<Int32(fieldCount)).map { String(cString: PQfname(handle, $0)) }
    }

    deinit { PQclear(handle) }

    /// The rows affected by an INSERT/UPDATE/DELETE (or returned by SELECT), from the command tag.
    public var affectedRows: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// The command tag, e.g. `INSERT 0 1`.
    public var commandTag: String { String(cString: PQcmdStatus(handle)) }

    /// First row index (0).
    public var startIndex: Int { 0 }
    /// One past the last row.
    public var endIndex: Int { count }

    /// The row at `position`.
    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < count, "row index out of range")
        return PostgresRow(result: self, index: position)
    }

    /// The column index named `name` (exact, case-sensitive match), if any.
    public func columnIndex(_ name: String) -> Int? {
        // Compared as C strings: no String is made per column per result on the hot path.
        name.withCString { wanted in
            (0..<Int32(fieldCount)).first { strcmp(PQfname(handle, $0), wanted) == 0 }.map(Int.init)
        }
    }

    func withBytes<Value>(row: Int, column: Int, _ body: (UnsafeRawBufferPointer?) throws -> Value) rethrows -> Value {
        precondition(column >= 0 && column < fieldCount, "column index out of range")
        return try body(bytes(row: Int32(row), column: Int32(column)))
    }

    /// The value's bytes (nil for NULL), pointing into the result.
    private func bytes(row: Int32, column: Int32) -> UnsafeRawBufferPointer? {
        guard PQgetisnull(handle, row, column) == 0 else { return nil }
        return UnsafeRawBufferPointer(start: PQgetvalue(handle, row, column), count: Int(PQgetlength(handle, row, column)))
    }

    func decode<Value: PostgresDecodable>(_: Value.Type, row: Int, column: Int) throws(PostgresError) -> Value {
        guard column >= 0 && column < fieldCount else {
            throw PostgresError(.decode, message: "column index \(column) is out of range (\(fieldCount) columns)")
        }
        let c = Int32(column)
        return try Value.decode(
            from: PostgresCell(
                bytes: bytes(row: Int32(row), column: c), dataType: PostgresDataType(oid: PQftype(handle, c)),
                name: UnsafePointer(PQfname(handle, c))))
    }
}
