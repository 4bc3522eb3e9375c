import Foundation
import GraphQL
import JSON

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

/// The contract's `Date` scalar text (the form ``ISO8601`` writes) from and to `Date`.
extension ISO8601 {
    static func format(_ date: Date) -> String {
        // To the nearest millisecond, as PostgresEncodable stores it: 0.999 s is 998.99… ms in binary.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        write(milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
