import Foundation

/// A Swift type that a column value (binary wire format) can be decoded into.
///
/// Conforming types: `String` (text, varchar, char, name), `Int`/`Int64`/`Int32`/`Int16` (any
/// integer column, range-checked), `Bool`, `Double` (float4/float8), `[UInt8]` (bytea), `Date`
/// (timestamptz/timestamp, millisecond precision), ``PostgresJSON`` (json/jsonb), and `Optional`
/// of any of them (NULL is `nil`; a NULL into a non-optional is a decode error).
public protocol PostgresDecodable {
    /// Decodes a value; errors name the column and types, never the value.
    static func decode(from cell: PostgresCell) throws(PostgresError) -> Self
}

extension String: PostgresDecodable {
    /// From text-like columns.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> String {
        let bytes = try cell.requireBytes(as: "String")
        switch cell.dataType {
        case .text, .varchar, .bpchar, .name, .unknown:
            return String(decoding: bytes, as: UTF8.self)
        default:
            throw cell.typeMismatch("String")
        }
    }
}

extension Int64: PostgresDecodable {
    /// From any integer column.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int64 {
        try cell.integer(as: "Int64")
    }
}

extension Int: PostgresDecodable {
    /// From any integer column.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int {
        Int(try cell.integer(as: "Int"))
    }
}

extension Int32: PostgresDecodable {
    /// From any integer column, range-checked.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int32 {
        let value = try cell.integer(as: "Int32")
        guard let narrow = Int32(exactly: value) else { throw cell.decodeError("value is out of range for Int32") }
        return narrow
    }
}

extension Int16: PostgresDecodable {
    /// From any integer column, range-checked.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int16 {
        let value = try cell.integer(as: "Int16")
        guard let narrow = Int16(exactly: value) else { throw cell.decodeError("value is out of range for Int16") }
        return narrow
    }
}

extension Bool: PostgresDecodable {
    /// From `bool`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Bool {
        let bytes = try cell.requireBytes(as: "Bool")
        guard cell.dataType == .bool else { throw cell.typeMismatch("Bool") }
        guard bytes.count == 1 else { throw cell.decodeError("has a malformed bool value") }
        return bytes[0] != 0
    }
}

extension Double: PostgresDecodable {
    /// From `float8` or `float4`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Double {
        let bytes = try cell.requireBytes(as: "Double")
        switch cell.dataType {
        case .float8: return Double(bitPattern: try cell.bigEndian(UInt64.self, bytes, as: "Double"))
        case .float4: return Double(Float(bitPattern: try cell.bigEndian(UInt32.self, bytes, as: "Double")))
        default: throw cell.typeMismatch("Double")
        }
    }
}

extension [UInt8]: PostgresDecodable {
    /// From `bytea`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> [UInt8] {
        let bytes = try cell.requireBytes(as: "[UInt8]")
        guard cell.dataType == .bytea else { throw cell.typeMismatch("[UInt8]") }
        return [UInt8](bytes)
    }
}

extension Date: PostgresDecodable {
    /// From `timestamptz` (or `timestamp`, read as UTC), truncated to the millisecond.
    /// `infinity`/`-infinity` become `distantFuture`/`distantPast`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Date {
        let bytes = try cell.requireBytes(as: "Date")
        guard cell.dataType == .timestamptz || cell.dataType == .timestamp else { throw cell.typeMismatch("Date") }
        let micros = try cell.bigEndian(Int64.self, bytes, as: "Date")
        if micros == .max { return .distantFuture }
        if micros == .min { return .distantPast }
        let unixMicros = micros + postgresEpochOffsetMicroseconds
        // Floor division, so that times before 1970 also truncate downwards.
        let milliseconds = unixMicros >= 0 ? unixMicros / 1000 : (unixMicros - 999) / 1000
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    /// NULL is `nil`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Wrapped? {
        if cell.isNull { return nil }
        return try Wrapped.decode(from: cell)
    }
}
