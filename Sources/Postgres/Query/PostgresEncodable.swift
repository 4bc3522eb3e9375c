import Foundation

/// A Swift value that can be sent as a bound parameter, in PostgreSQL's binary wire format.
///
/// Conforming types: `String`, `Int`, `Int64`, `Int32`, `Int16`, `Bool`, `Double`, `[UInt8]`
/// (`bytea`), `Date` (`timestamptz`), ``PostgresJSON`` (`jsonb`), and `Optional` of any of them
/// (`nil` is SQL NULL, typed as the wrapped type).
public protocol PostgresEncodable: Sendable {
    /// The parameter's declared type (also used for NULL).
    static var postgresDataType: PostgresDataType { get }
    /// Appends the binary wire form to `buffer`; returns `false`, appending nothing, for SQL NULL.
    func encodeBinary(into buffer: inout [UInt8]) -> Bool
}

extension [UInt8] {
    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

extension String: PostgresEncodable {
    /// `text`.
    public static var postgresDataType: PostgresDataType { .text }
    /// UTF-8 bytes (binary text format is the text itself).
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.append(contentsOf: utf8)
        return true
    }
}

extension Int64: PostgresEncodable {
    /// `int8`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Eight bytes, big-endian.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(self)
        return true
    }
}

extension Int: PostgresEncodable {
    /// `int8`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Eight bytes, big-endian.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(Int64(self))
        return true
    }
}

extension Int32: PostgresEncodable {
    /// `int4`.
    public static var postgresDataType: PostgresDataType { .int4 }
    /// Four bytes, big-endian.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(self)
        return true
    }
}

extension Int16: PostgresEncodable {
    /// `int2`.
    public static var postgresDataType: PostgresDataType { .int2 }
    /// Two bytes, big-endian.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(self)
        return true
    }
}

extension Bool: PostgresEncodable {
    /// `bool`.
    public static var postgresDataType: PostgresDataType { .bool }
    /// One byte, 0 or 1.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.append(self ? 1 : 0)
        return true
    }
}

extension Double: PostgresEncodable {
    /// `float8`.
    public static var postgresDataType: PostgresDataType { .float8 }
    /// IEEE 754 bits, big-endian.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(bitPattern)
        return true
    }
}

extension [UInt8]: PostgresEncodable {
    /// `bytea`.
    public static var postgresDataType: PostgresDataType { .bytea }
    /// The bytes themselves.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.append(contentsOf: self)
        return true
    }
}

/// Microseconds between the Unix epoch and PostgreSQL's epoch, 2000-01-01 00:00:00 UTC.
let postgresEpochOffsetMicroseconds: Int64 = 946_684_800 * 1_000_000

extension Date: PostgresEncodable {
    /// `timestamptz`.
    public static var postgresDataType: PostgresDataType { .timestamptz }
    /// Microseconds since 2000-01-01 UTC, big-endian, of ``postgresMilliseconds`` (Gatehouse keeps
    /// millisecond precision, as Parse does); times beyond it map to `-infinity`/`infinity`.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        let micros: Int64
        if let milliseconds = postgresMilliseconds {
            micros = milliseconds * 1000 - postgresEpochOffsetMicroseconds
        } else {
            micros = timeIntervalSince1970 > 0 ? .max : .min
        }
        buffer.appendBigEndian(micros)
        return true
    }

    /// This time as a `timestamptz` parameter stores it: milliseconds since 1970 UTC, rounded;
    /// nil when it is sent as `infinity` or `-infinity` (beyond about 285,000 years from 1970).
    public var postgresMilliseconds: Int64? {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        if milliseconds >= 9.0e15 || milliseconds <= -9.0e15 { return nil }
        return Int64(milliseconds)
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// The wrapped type's.
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    /// The wrapped value, or NULL.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        switch self {
        case .none: return false
        case .some(let value): return value.encodeBinary(into: &buffer)
        }
    }
}
