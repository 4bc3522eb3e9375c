internal import CLibPQ
import Threading

extension Connection {
    /// Runs `statement`, a `COPY … FROM STDIN` in text format, sending `rows` (built by
    /// ``CopyRows``) as its input; returns the number of rows copied. The statement is static
    /// text: only the rows carry data. Inside a transaction when called on one's connection.
    ///
    /// A failure of the server (a constraint, a malformed row) throws its error and leaves the
    /// connection usable; a failure to send marks it broken.
    @discardableResult
    public func copyIn(_ statement: StaticString, rows: CopyRows) throws(PostgresError) -> Int {
        EventThread.assertMayBlock("A PostgreSQL COPY ran")
        let conn = try liveHandle()
        guard let start = PQexec(conn, statement.description) else {
            _ = try check(nil)
            return 0
        }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try check(start)  // an error (a bad statement) throws here; anything else is misuse
            throw PostgresError(.usage, message: "copyIn needs a COPY … FROM STDIN statement")
        }
        PQclear(start)
        var sent = true
        let chunk = 1 << 16
        rows.bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            while sent, offset < bytes.count {
                let count = min(chunk, bytes.count - offset)
                let pointer = UnsafeRawPointer(bytes.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                sent = PQputCopyData(conn, pointer, Int32(count)) == 1
                offset += count
            }
        }
        guard sent, PQputCopyEnd(conn, nil) == 1 else {
            markBroken()
            throw PostgresError(.connection, message: "sending COPY data failed", sqlState: "08006")
        }
        // The statement's result, then nil; the last result other than nil is the outcome.
        var outcome: OpaquePointer? = nil
        while let result = PQgetResult(conn) {
            if let outcome { PQclear(outcome) }
            outcome = result
        }
        return try check(outcome).affectedRows
    }
}

/// Rows for ``Connection/copyIn(_:rows:)`` in COPY's text format: one line per row, fields split
/// by tabs, `\N` for NULL, and backslash, tab, newline and carriage return escaped.
public struct CopyRows: Sendable {
    /// The encoded rows.
    public private(set) var bytes: [UInt8] = []
    /// How many rows were added.
    public private(set) var count = 0

    /// No rows.
    public init() {}

    /// Appends a row of text fields (nil: NULL), in the statement's column order.
    public mutating func append(_ fields: [String?]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "\t")) }
            guard let field else {
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
                continue
            }
            for byte in field.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\n"))
        count += 1
    }
}
