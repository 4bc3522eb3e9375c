import Foundation
import Signatures

/// Time-based one-time passwords (RFC 6238 over HOTP, RFC 4226) as authenticator apps make them:
/// HMAC-SHA-1, 30-second steps counted from the Unix epoch, 6 digits.
public struct TOTP: Sendable {
    /// The shared secret (at least 160 bits when enrolled; any length works here).
    let secret: [UInt8]
    /// Digits per code.
    public let digits: Int
    /// Seconds per step.
    public let period: Int

    public init(secret: [UInt8], digits: Int = 6, period: Int = 30) {
        precondition((1...9).contains(digits) && period > 0, "TOTP: digits 1...9 and a positive period")
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// The step `time` falls in: whole periods since the Unix epoch.
    public func step(at time: Date) -> Int64 {
        Int64((time.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code of `step`, zero-padded to ``digits`` (RFC 4226 §5.3: dynamic truncation).
    public func code(step: Int64) -> String {
        var counter = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { counter[index] = UInt8(truncatingIfNeeded: UInt64(bitPattern: step) >> UInt64(56 - 8 * index)) }
        let mac = HMAC.sha1(key: secret, message: counter)
        let offset = Int(mac[19] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The code of the step `time` falls in.
    public func code(at time: Date) -> String {
        code(step: step(at: time))
    }

    /// The step whose code `code` is, among the step of `time` and one step either side (clock
    /// drift, RFC 6238 §5.2), the current step first; nil when none matches. Compared in full
    /// for every candidate step, so the time taken does not tell which digits were right.
    public func verify(_ code: String, at time: Date) -> Int64? {
        let given = Array(code.utf8)
        guard given.count == digits, given.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let now = step(at: time)
        var matched: Int64? = nil
        for candidate in [now, now - 1, now + 1] {
            var difference: UInt8 = 0
            for (a, b) in zip(given, Array(self.code(step: candidate).utf8)) { difference |= a ^ b }
            if difference == 0 && matched == nil { matched = candidate }
        }
        return matched
    }
}
