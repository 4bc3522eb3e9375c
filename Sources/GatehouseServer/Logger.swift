import AuthGraphQL
import Foundation
import GraphQL

/// Log levels, most severe first.
public enum LogLevel: String, Sendable, Hashable, Comparable {
    case error, warn, info, debug

    private var rank: Int {
        switch self {
        case .error: 0
        case .warn: 1
        case .info: 2
        case .debug: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}

/// One JSON object per line on standard error. Callers never pass secrets: request
/// logs carry method, path, status, timing, operation name and client address only.
public struct Logger: Sendable {
    public let level: LogLevel
    private let write: @Sendable (UnsafeRawBufferPointer) -> Void
    private let flushNow: @Sendable () -> Void

    /// Lines go to `write` (default: standard error, buffered: see `LogWriter`), one call per
    /// line with the line's bytes (valid during the call only); `flush` runs after each
    /// warning or error and from ``flush()``.
    public init(
        level: LogLevel, write: @escaping @Sendable (UnsafeRawBufferPointer) -> Void = Logger.standardError,
        flush: @escaping @Sendable () -> Void = Logger.flushStandardError
    ) {
        self.level = level
        self.write = write
        self.flushNow = flush
    }

    public static let standardError: @Sendable (UnsafeRawBufferPointer) -> Void = { LogWriter.standardError.write($0) }
    public static let flushStandardError: @Sendable () -> Void = { LogWriter.standardError.flush() }

    /// Writes out buffered lines now (before the process exits).
    public func flush() { flushNow() }

    public func enabled(_ level: LogLevel) -> Bool { level <= self.level }

    /// Writes `{"time":…,"level":…,"msg":…, fields…}` and a newline. `fields` must not use
    /// the keys `time`, `level` or `msg`.
    public func log(_ level: LogLevel, _ message: String, _ fields: JSONObject = [:]) {
        guard enabled(level) else { return }
        var rest: [UInt8] = []
        for (key, value) in fields {
            rest.append(UInt8(ascii: ","))
            JSONWriter.writeString(key, to: &rest)
            rest.append(UInt8(ascii: ":"))
            JSONWriter.write(value, to: &rest)
        }
        rest.withUnsafeBufferPointer { rest in
            write(level, message, fieldsLength: rest.count) { line in line.append(rest) }
        }
    }

    /// The info line `"request"` with its fields (as `log` would write them from a
    /// `JSONObject`), written field by field: most requests log this line only.
    /// `microseconds` is written as `duration_ms`, a decimal with up to three places.
    public func request(method: String, path: String, status: Int, microseconds: Int, client: String, operation: String?) {
        guard enabled(.info) else { return }
        let strings = LineWriter.longest(method) + LineWriter.longest(path) + LineWriter.longest(client)
            + (operation.map(LineWriter.longest) ?? 0)
        write(.info, "request", fieldsLength: 90 + 2 * LineWriter.longestInt + strings) { line in
            line.append(#","method":"#)
            line.appendString(method)
            line.append(#","path":"#)
            line.appendString(path)
            line.append(#","status":"#)
            line.appendInt(status)
            line.append(#","duration_ms":"#)
            let micros = max(0, microseconds)
            line.appendInt(micros / 1000)
            var fraction = micros % 1000
            if fraction > 0 {
                line.append(UInt8(ascii: "."))
                var divisor = 100
                while fraction > 0 {
                    line.append(UInt8(truncatingIfNeeded: 0x30 + fraction / divisor))
                    fraction %= divisor
                    divisor /= 10
                }
            }
            line.append(#","client":"#)
            line.appendString(client)
            if let operation {
                line.append(#","operation":"#)
                line.appendString(operation)
            }
        }
    }

    /// Writes one line whose fields, written by `fields`, take at most `fieldsLength` bytes.
    /// A line is built in memory sized for its longest form, on the stack when that is small.
    /// Callers check `enabled(level)` first.
    private func write(_ level: LogLevel, _ message: String, fieldsLength: Int, fields: (inout LineWriter) -> Void) {
        // 96: the braces, the three keys and the longest timestamp (30 bytes, at Int64's
        // furthest millisecond), with room to spare.
        let capacity = 96 + LineWriter.longest(message) + fieldsLength
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { memory in
            var line = LineWriter(memory)
            line.append(#"{"time":""#)
            line.appendTimestamp()
            line.append(#"","level":""#)
            line.append(level.name)
            line.append(#"","msg":"#)
            line.appendString(message)
            fields(&line)
            line.append("}\n")
            write(line.written)
        }
        if level <= .warn { flushNow() }
    }

    public func error(_ message: String, _ fields: JSONObject = [:]) { log(.error, message, fields) }
    public func warn(_ message: String, _ fields: JSONObject = [:]) { log(.warn, message, fields) }
    public func info(_ message: String, _ fields: JSONObject = [:]) { log(.info, message, fields) }
    public func debug(_ message: String, _ fields: JSONObject = [:]) { log(.debug, message, fields) }

    /// Now, in milliseconds since 1970 UTC, for the lines' ISO 8601 `time` (written digit by
    /// digit: `String(format:)` was a tenth of the server's CPU at 27k requests/s; `gmtime_r`
    /// serialised the request threads on glibc's time-zone lock).
    fileprivate static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000)
    }
}

extension LogLevel {
    /// The level's name as the log writes it.
    fileprivate var name: StaticString {
        switch self {
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .debug: "debug"
        }
    }
}

/// Writes one log line through a pointer into memory sized beforehand for the line's longest
/// form. (Appending to an `Array` checked its uniqueness and capacity on every call, which
/// was most of the request line's cost.)
struct LineWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private var end: UnsafeMutablePointer<UInt8>
    private let limit: UnsafeMutablePointer<UInt8>

    init(_ memory: UnsafeMutableBufferPointer<UInt8>) {
        start = memory.baseAddress!
        end = start
        limit = start + memory.count
    }

    /// The most bytes `appendString` writes for `string`: each byte escaped as `\u00XX`, and quotes.
    static func longest(_ string: String) -> Int { 2 + 6 * string.utf8.count }
    /// The most bytes `appendInt` writes.
    static let longestInt = 20

    /// What was written so far.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: end - start) }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        end.initialize(to: byte)
        end += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        end.initialize(from: base, count: bytes.count)
        end += bytes.count
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal.
    mutating func appendInt(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        reserve(digits)
        end += digits
        var position = end
        repeat {
            position -= 1
            position.initialize(to: UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
    }

    /// `string` as a quoted JSON string, escaped as ``JSONWriter`` escapes it.
    mutating func appendString(_ string: String) {
        let plain: Bool? = string.utf8.withContiguousStorageIfAvailable { bytes in
            guard !JSONWriter.mayNeedEscaping(bytes) else { return false }
            append(UInt8(ascii: "\""))
            append(bytes)
            append(UInt8(ascii: "\""))
            return true
        }
        if plain == true { return }
        var quoted: [UInt8] = []
        JSONWriter.writeString(string, to: &quoted)
        quoted.withUnsafeBufferPointer { append($0) }
    }

    /// Now, in ISO 8601 UTC with milliseconds, e.g. `2026-12-01T07:50:39.291Z`.
    mutating func appendTimestamp() {
        let milliseconds = Logger.nowMilliseconds()
        reserve(ISO8601.fixedLength)
        if ISO8601.write(milliseconds: milliseconds, into: end) {
            end += ISO8601.fixedLength
            return
        }
        // Outside the years 0...9999.
        var text: [UInt8] = []
        ISO8601.write(milliseconds: milliseconds, to: &text)
        text.withUnsafeBufferPointer { append($0) }
    }

    /// Stops the process rather than write past the memory (the lengths given are wrong then).
    private func reserve(_ count: Int) {
        precondition(limit - end >= count, "a log line outgrew the length computed for it")
    }
}
