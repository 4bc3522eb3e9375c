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
    private let write: @Sendable ([UInt8]) -> Void
    private let flushNow: @Sendable () -> Void

    /// Lines go to `write` (default: standard error, buffered: see `LogWriter`); `flush`
    /// runs after each warning or error and from ``flush()``.
    public init(
        level: LogLevel, write: @escaping @Sendable ([UInt8]) -> Void = Logger.standardError,
        flush: @escaping @Sendable () -> Void = Logger.flushStandardError
    ) {
        self.level = level
        self.write = write
        self.flushNow = flush
    }

    public static let standardError: @Sendable ([UInt8]) -> Void = { LogWriter.standardError.write($0) }
    public static let flushStandardError: @Sendable () -> Void = { LogWriter.standardError.flush() }

    /// Writes out buffered lines now (before the process exits).
    public func flush() { flushNow() }

    public func enabled(_ level: LogLevel) -> Bool { level <= self.level }

    /// Writes `{"time":…,"level":…,"msg":…, fields…}` and a newline, straight into one
    /// buffer (once per request: no intermediate object). `fields` must not use the keys
    /// `time`, `level` or `msg`.
    public func log(_ level: LogLevel, _ message: String, _ fields: JSONObject = [:]) {
        write(level, message) { line in
            for (key, value) in fields {
                line.append(UInt8(ascii: ","))
                JSONWriter.writeString(key, to: &line)
                line.append(UInt8(ascii: ":"))
                JSONWriter.write(value, to: &line)
            }
        }
    }

    /// The info line `"request"` with its fields (as `log` would write them from a
    /// `JSONObject`), written field by field: most requests log this line only.
    /// `microseconds` is written as `duration_ms`, a decimal with up to three places.
    public func request(method: String, path: String, status: Int, microseconds: Int, client: String, operation: String?) {
        write(.info, "request") { line in
            Self.append(#","method":"#, to: &line)
            JSONWriter.writeString(method, to: &line)
            Self.append(#","path":"#, to: &line)
            JSONWriter.writeString(path, to: &line)
            Self.append(#","status":"#, to: &line)
            JSONWriter.writeInt(status, to: &line)
            Self.append(#","duration_ms":"#, to: &line)
            let micros = max(0, microseconds)
            JSONWriter.writeInt(micros / 1000, to: &line)
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
            Self.append(#","client":"#, to: &line)
            JSONWriter.writeString(client, to: &line)
            if let operation {
                Self.append(#","operation":"#, to: &line)
                JSONWriter.writeString(operation, to: &line)
            }
        }
    }

    private func write(_ level: LogLevel, _ message: String, fields: (inout [UInt8]) -> Void) {
        guard enabled(level) else { return }
        var line: [UInt8] = []
        line.reserveCapacity(256)  // a request line is about 200 bytes
        Self.append(#"{"time":""#, to: &line)
        Self.timestamp(into: &line)
        Self.append(#"","level":""#, to: &line)
        line.append(contentsOf: level.rawValue.utf8)
        Self.append(#"","msg":"#, to: &line)
        JSONWriter.writeString(message, to: &line)
        fields(&line)
        Self.append("}\n", to: &line)
        write(line)
        if level <= .warn { flushNow() }
    }

    private static func append(_ text: StaticString, to line: inout [UInt8]) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public func error(_ message: String, _ fields: JSONObject = [:]) { log(.error, message, fields) }
    public func warn(_ message: String, _ fields: JSONObject = [:]) { log(.warn, message, fields) }
    public func info(_ message: String, _ fields: JSONObject = [:]) { log(.info, message, fields) }
    public func debug(_ message: String, _ fields: JSONObject = [:]) { log(.debug, message, fields) }

    /// Appends now as ISO 8601 UTC with milliseconds, e.g. `2026-12-01T07:50:39.291Z`, digit by
    /// digit (`String(format:)` was a tenth of the server's CPU at 27k requests/s; `gmtime_r`
    /// serialised the request threads on glibc's time-zone lock).
    static func timestamp(into output: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        ISO8601.write(milliseconds: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000), to: &output)
    }
}
