/// JSON text, sent as `jsonb` and decoded from `json` or `jsonb` columns.
///
/// The layer does not parse JSON: callers encode and decode it with their own JSON types.
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    /// The JSON text (UTF-8).
    public var text: String

    /// Wraps JSON text. PostgreSQL validates it when the parameter is bound.
    public init(_ text: String) { self.text = text }

    /// The JSON text's UTF-8 bytes.
    public var bytes: [UInt8] { Array(text.utf8) }

    /// `jsonb`.
    public static var postgresDataType: PostgresDataType { .jsonb }

    /// jsonb binary format: version byte 1, then the text.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.append(1)
        buffer.append(contentsOf: text.utf8)
        return true
    }

    /// From `jsonb` (version 1) or `json`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> PostgresJSON {
        let bytes = try cell.requireBytes(as: "PostgresJSON")
        switch cell.dataType {
        case .jsonb:
            guard let version = bytes.first, version == 1 else {
                throw cell.decodeError("has an unsupported jsonb format version; expected PostgresJSON")
            }
            return PostgresJSON(String(decoding: bytes.dropFirst(), as: UTF8.self))
        case .json:
            return PostgresJSON(String(decoding: bytes, as: UTF8.self))
        default:
            throw cell.typeMismatch("PostgresJSON")
        }
    }
}
