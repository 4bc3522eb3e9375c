import Foundation
import GraphQL

/// The contract's custom scalars: `Date` (ISO-8601 UTC with milliseconds) and
/// `Object` (any JSON object).
enum ContractScalars {
    static let all: [String: ScalarCoercion] = ["Date": date, "Object": object]

    static let date = ScalarCoercion(
        serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
            switch value {
            case .value(let date as Date): return .string(ISO8601.format(date))
            case .string(let text):
                guard let date = ISO8601.parse(text) else { throw CoercionError("Date cannot represent value: \"\(text)\"") }
                return .string(ISO8601.format(date))
            default: throw CoercionError("Date cannot represent a non-date value.")
            }
        },
        parseValue: { (json: JSON) throws(CoercionError) -> JSON in
            guard case .string(let text) = json, let date = ISO8601.parse(text) else {
                throw CoercionError("Date cannot represent value: \(json.inspected); expected an ISO-8601 date such as \"2026-11-30T08:00:00.000Z\".")
            }
            return .string(ISO8601.format(date))
        },
        parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
            guard case .string(let text, _) = literal.kind, let date = ISO8601.parse(text) else {
                throw CoercionError("Date cannot represent value: \(print(literal)); expected an ISO-8601 date such as \"2026-11-30T08:00:00.000Z\".")
            }
            return .string(ISO8601.format(date))
        })

    static let object = ScalarCoercion(
        serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
            guard case .json(.object(let object)) = value else { throw CoercionError("Object cannot represent a non-object value.") }
            return .object(object)
        },
        parseValue: { (json: JSON) throws(CoercionError) -> JSON in
            guard case .object = json else { throw CoercionError("Object cannot represent non-object value: \(json.inspected)") }
            return json
        },
        parseLiteral: { (literal: Value, variables: JSONObject) throws(CoercionError) -> JSON in
            guard case .object = literal.kind else { throw CoercionError("Object cannot represent non-object value: \(print(literal))") }
            return literal.untypedJSON(variables: variables)
        })
}

/// ISO-8601 in the one form the contract uses: `2026-11-30T08:00:00.000Z` (also the log's timestamps).
public enum ISO8601 {
    static func format(_ date: Date) -> String {
        // To the nearest millisecond, as PostgresEncodable stores it: 0.999 s is 998.99… ms in binary.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        write(milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the text of `milliseconds` since 1970 UTC, computed here (proleptic Gregorian,
    /// Howard Hinnant's civil-from-days): glibc's `gmtime_r` takes a process-wide lock.
    public static func write(milliseconds: Int64, to output: inout [UInt8]) {
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let msOfDay = milliseconds - days * 86_400_000
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if (0...9999).contains(year) {
            // The usual case, 24 bytes filled on the stack and appended at once (appending each
            // byte checked the array's uniqueness and capacity: 1.6K instructions a timestamp).
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { out in
                func digits(_ value: Int64, _ width: Int, at offset: Int) {
                    var value = value
                    for i in stride(from: offset + width - 1, through: offset, by: -1) {
                        out[i] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                        value /= 10
                    }
                }
                digits(year, 4, at: 0); out[4] = UInt8(ascii: "-"); digits(month, 2, at: 5); out[7] = UInt8(ascii: "-")
                digits(day, 2, at: 8); out[10] = UInt8(ascii: "T")
                digits(msOfDay / 3_600_000, 2, at: 11); out[13] = UInt8(ascii: ":")
                digits(msOfDay / 60_000 % 60, 2, at: 14); out[16] = UInt8(ascii: ":")
                digits(msOfDay / 1000 % 60, 2, at: 17); out[19] = UInt8(ascii: ".")
                digits(msOfDay % 1000, 3, at: 20); out[23] = UInt8(ascii: "Z")
                output.append(contentsOf: UnsafeBufferPointer(out))
            }
            return
        }
        // Byte by byte: string interpolation of padded parts was a tenth of a viewer's execution.
        func put(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
                divisor /= 10
            }
        }
        func put(_ separator: Unicode.Scalar) { output.append(UInt8(ascii: separator)) }
        if year < 0 { put("-") }
        let magnitude = year.magnitude
        put(Int64(magnitude), magnitude > 9999 ? String(magnitude).count : 4)
        put("-"); put(month, 2); put("-"); put(day, 2); put("T")
        put(msOfDay / 3_600_000, 2); put(":"); put(msOfDay / 60_000 % 60, 2); put(":"); put(msOfDay / 1000 % 60, 2)
        put("."); put(msOfDay % 1000, 3); put("Z")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS(.fraction)?(Z|±HH:MM)`.
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
