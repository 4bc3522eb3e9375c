import Foundation
import Locking

/// Standard error for log lines, without a `write(2)` per line: lines are appended to a buffer
/// that one thread writes out 20 ms after the first of them arrives (the request log is one
/// line per request; the syscall was ~10% of a `{ health }`'s CPU), or at once when 256 KiB are
/// waiting. Writers only append, so request threads never wait on the descriptor. ``flush()`` writes what is
/// waiting at once: `Logger` calls it after warnings and errors, the server when it stops.
/// Lines keep their order. A crash can lose the last 20 ms of lines.
final class LogWriter: @unchecked Sendable {
    // @unchecked: `buffer` and `threadStarted` are touched with `mutex` held; writes are
    // serialised by `writing`.
    static let standardError = LogWriter(fd: 2)

    private let fd: Int32
    private let mutex = ConditionMutex()
    private let linesWaiting = ConditionMutex.Condition()
    private let writing = Lock(())
    private var buffer: [UInt8] = []
    private var threadStarted = false
    /// The thread writes at once, without waiting out its 20 ms, when this much is waiting.
    private let limit = 256 << 10

    init(fd: Int32) { self.fd = fd }

    /// Appends `line`; never writes itself, so it never waits on the file descriptor.
    func write(_ line: [UInt8]) {
        mutex.withLock {
            let before = buffer.count
            if before == 0 && !threadStarted {
                threadStarted = true
                Thread { [self] in run() }.start()
            }
            buffer.append(contentsOf: line)
            if before == 0 || (before < limit && buffer.count >= limit) { linesWaiting.signal() }
        }
    }

    /// Writes everything buffered, now.
    func flush() {
        writing.withLock { _ in
            let bytes: [UInt8] = mutex.withLock {
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            bytes.withUnsafeBufferPointer { pointer in
                var offset = 0
                while offset < pointer.count {
                    let written = Foundation.write(fd, pointer.baseAddress! + offset, pointer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    private func run() {
        Thread.current.name = "gh-log"
        while true {
            mutex.withLock {
                while buffer.isEmpty { mutex.wait(linesWaiting) }
                // Let the lines of the next 20 ms join these, unless the buffer fills first.
                let deadline = ContinuousClock.now + .milliseconds(20)
                while buffer.count < limit, ContinuousClock.now < deadline {
                    _ = mutex.wait(linesWaiting, seconds: 0.02)
                }
            }
            flush()
        }
    }
}
