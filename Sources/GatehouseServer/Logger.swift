import Foundation
import JSON

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
    private let hurry: @Sendable () -> Void

    /// Lines go to `write` (default: standard error, buffered: see `LogWriter`), one call per
    /// line with the line's bytes (valid during the call only); `hurry` runs after each warning
    /// or error (it must not wait), `flush` from ``flush()``.
    public init(
        level: LogLevel, write: @escaping @Sendable (UnsafeRawBufferPointer) -> Void = Logger.standardError,
        hurry: @escaping @Sendable () -> Void = Logger.hurryStandardError,
        flush: @escaping @Sendable () -> Void = Logger.flushStandardError
    ) {
        self.level = level
        self.write = write
        self.hurry = hurry
        self.flushNow = flush
    }

    public static let standardError: @Sendable (UnsafeRawBufferPointer) -> Void = { LogWriter.standardError.write($0) }
    public static let hurryStandardError: @Sendable () -> Void = { LogWriter.standardError.hurry() }
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
            write(level, message) { line in line.append(contentsOf: rest) }
        }
    }

    /// The info line `"request"` with its fields (as `log` would write them from a
    /// `JSONObject`), written field by field: most requests log this line only.
    /// `microseconds` is written as `duration_ms`, a decimal with up to three places.
    public func request(method: String, path: String, status: Int, microseconds: Int, client: String, operation: String?) {
        guard enabled(.info) else { return }
        write(.info, "request") { line in
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

    /// Writes one line, its fields written by `fields`. The line starts in
    /// ``LineWriter/stackCapacity`` bytes of stack memory, which a request line fits, and
    /// moves to the heap if it grows past them. Callers check `enabled(level)` first.
    private func write(_ level: LogLevel, _ message: String, fields: (inout LineWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: LineWriter.stackCapacity) { memory in
            var line = LineWriter(memory)
            defer { line.release() }
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
        if level <= .warn { hurry() }
    }

    public func error(_ message: String, _ fields: JSONObject = [:]) { log(.error, message, fields) }
    public func warn(_ message: String, _ fields: JSONObject = [:]) { log(.warn, message, fields) }
    public func info(_ message: String, _ fields: JSONObject = [:]) { log(.info, message, fields) }
    public func debug(_ message: String, _ fields: JSONObject = [:]) { log(.debug, message, fields) }

    /// Now, in milliseconds since 1970 UTC, for the lines' ISO 8601 `time` (which ``ISO8601``
    /// writes digit by digit, with neither `String(format:)` nor `gmtime_r`, whose time-zone
    /// lock is process-wide).
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

/// Writes one log line through a pointer, which is cheaper than appending to an `Array` (that
/// checks its uniqueness and capacity on every call). It starts in memory the caller lends
/// (the stack) and, when a write would pass its end, moves to heap memory at least twice the
/// size: no line can overflow, whatever fields it has. ``release()`` frees that heap memory.
struct LineWriter: JSONOutput {
    /// The bytes of stack memory a line starts in: enough for a request line with the usual
    /// lengths of path and client.
    static let stackCapacity = 1024

    private var start: UnsafeMutablePointer<UInt8>
    private var end: UnsafeMutablePointer<UInt8>
    private var limit: UnsafeMutablePointer<UInt8>
    /// Whether `start` is heap memory this writer allocated.
    private var ownsMemory = false

    init(_ memory: UnsafeMutableBufferPointer<UInt8>) {
        start = memory.baseAddress!
        end = start
        limit = start + memory.count
    }

    /// Frees the heap memory the line moved to, if it did (the caller's memory is the caller's).
    func release() {
        if ownsMemory { start.deallocate() }
    }

    /// What was written so far.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: end - start) }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        end.initialize(to: byte)
        end += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        end.initialize(from: base, count: bytes.count)
        end += bytes.count
    }

    mutating func append(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
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

    /// `string` as a quoted JSON string, escaped by ``JSONWriter`` as in every JSON it writes.
    mutating func appendString(_ string: String) {
        JSONWriter.writeString(string, to: &self)
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
        text.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Makes room for `count` more bytes.
    private mutating func reserve(_ count: Int) {
        if limit - end < count { grow(count) }
    }

    /// Moves the line to heap memory with room for `count` more bytes.
    @inline(never)
    private mutating func grow(_ count: Int) {
        let used = end - start
        let capacity = max(2 * (limit - start), used + count)
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        memory.initialize(from: start, count: used)
        release()
        start = memory
        end = memory + used
        limit = memory + capacity
        ownsMemory = true
    }
}
