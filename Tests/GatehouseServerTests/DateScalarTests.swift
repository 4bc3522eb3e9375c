import Foundation
@testable import AuthGraphQL
import JSON
import Testing

/// The contract's `Date` text: ISO-8601 UTC with milliseconds, as Foundation's formatter writes it.
@Suite struct DateScalarTests {
    @Test func matchesFoundationOverManyDates() {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        var milliseconds: [Int64] = [0, 1, 999, 1000, -1, -1000, 951_782_400_000, 4_107_542_399_999, 1_796_000_000_123]
        // From 1590 (Foundation is Julian before the Gregorian reform; ISO-8601 is proleptic Gregorian) to 8307.
        for _ in 0..<2000 { milliseconds.append(Int64.random(in: -12_000_000_000_000...200_000_000_000_000, using: &generator)) }
        for ms in milliseconds {
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(ISO8601.format(date) == reference.string(from: date), "\(ms)")
        }
    }

    @Test func yearsBeyondFourDigits() {
        #expect(ISO8601.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
        #expect(ISO8601.format(.distantFuture) == "4001-01-01T00:00:00.000Z")
    }

    /// Both ends of the four-digit fast path, and the general path on either side of it.
    @Test func edgesOfFourDigitYears() {
        func text(_ milliseconds: Int64) -> String {
            var out: [UInt8] = []
            ISO8601.write(milliseconds: milliseconds, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(text(-62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(text(-62_167_219_200_001) == "-0001-12-31T23:59:59.999Z")
        #expect(text(253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(text(253_402_300_800_000) == "10000-01-01T00:00:00.000Z")
    }

    @Test func parsesWhatItFormats() throws {
        let date = Date(timeIntervalSince1970: 1_796_000_000.123)
        let parsed = try #require(ISO8601.parse(ISO8601.format(date)))
        #expect(abs(parsed.timeIntervalSince(date)) < 0.0005)
    }
}
