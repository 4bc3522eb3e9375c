/// ISO-8601 UTC with milliseconds in the one form the contract's `Date` scalar and the log's
/// timestamps use: `2026-11-30T08:00:00.000Z`.
public enum ISO8601 {
    /// The length of the text of a time in the years 0...9999.
    public static let fixedLength = 24

    /// Appends the text of `milliseconds` since 1970 UTC.
    public static func write(milliseconds: Int64, to output: inout [UInt8]) {
        let done = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: fixedLength) { out in
            // Filled on the stack and appended at once: the array checks its uniqueness and
            // capacity once, not once a byte.
            guard write(milliseconds: milliseconds, into: out.baseAddress!) else { return false }
            output.append(contentsOf: UnsafeBufferPointer(out))
            return true
        }
        if done { return }
        // Years outside 0...9999 (rare): byte by byte, with no string interpolation.
        let date = CivilTime(milliseconds: milliseconds)
        func put(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
                divisor /= 10
            }
        }
        func put(_ separator: Unicode.Scalar) { output.append(UInt8(ascii: separator)) }
        if date.year < 0 { put("-") }
        let magnitude = date.year.magnitude
        put(Int64(magnitude), magnitude > 9999 ? String(magnitude).count : 4)
        put("-"); put(date.month, 2); put("-"); put(date.day, 2); put("T")
        put(date.msOfDay / 3_600_000, 2); put(":"); put(date.msOfDay / 60_000 % 60, 2); put(":")
        put(date.msOfDay / 1000 % 60, 2); put("."); put(date.msOfDay % 1000, 3); put("Z")
    }

    /// Writes the ``fixedLength`` bytes of the text of `milliseconds` since 1970 UTC at `out`
    /// if its year is in 0...9999; else writes nothing and returns false.
    public static func write(milliseconds: Int64, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let date = CivilTime(milliseconds: milliseconds)
        guard (0...9999).contains(date.year) else { return false }
        func digits(_ value: Int64, _ width: Int, at offset: Int) {
            var value = value
            for i in stride(from: offset + width - 1, through: offset, by: -1) {
                out[i] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
        }
        digits(date.year, 4, at: 0); out[4] = UInt8(ascii: "-"); digits(date.month, 2, at: 5); out[7] = UInt8(ascii: "-")
        digits(date.day, 2, at: 8); out[10] = UInt8(ascii: "T")
        digits(date.msOfDay / 3_600_000, 2, at: 11); out[13] = UInt8(ascii: ":")
        digits(date.msOfDay / 60_000 % 60, 2, at: 14); out[16] = UInt8(ascii: ":")
        digits(date.msOfDay / 1000 % 60, 2, at: 17); out[19] = UInt8(ascii: ".")
        digits(date.msOfDay % 1000, 3, at: 20); out[23] = UInt8(ascii: "Z")
        return true
    }

    /// A UTC date and time of day, computed here (proleptic Gregorian, Howard Hinnant's
    /// civil-from-days): glibc's `gmtime_r` takes a process-wide lock.
    private struct CivilTime {
        let year: Int64, month: Int64, day: Int64, msOfDay: Int64

        init(milliseconds: Int64) {
            var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
            msOfDay = milliseconds - days * 86_400_000
            days += 719_468
            let era = (days >= 0 ? days : days - 146_096) / 146_097
            let dayOfEra = days - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let mp = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * mp + 2) / 5 + 1
            month = mp < 10 ? mp + 3 : mp - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        }
    }

}
