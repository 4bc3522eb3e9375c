import Synchronization

/// Log output captured in memory, for tests that read what was logged.
public final class LogCapture: Sendable {
    private let captured = Mutex<[String]>([])

    public init() {}

    /// Appends one entry as it is.
    public func append(_ line: String) { captured.withLock { $0.append(line) } }

    /// For a logger's `write`: appends the bytes' lines (empty lines dropped).
    public var write: @Sendable (UnsafeRawBufferPointer) -> Void {
        { bytes in
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            self.captured.withLock { $0 += lines }
        }
    }

    /// The entries so far, in order.
    public var lines: [String] { captured.withLock { $0 } }

    /// The entries so far as text, one a line.
    public var text: String { lines.joined(separator: "\n") }
}
