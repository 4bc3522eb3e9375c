import Foundation
import JSON
import Threading

/// Standard error for log lines, without a `write(2)` per line: lines are appended to a buffer
/// that one thread writes out 20 ms after the first of them arrives (the request log is one
/// line per request, so a syscall per line would cost every request one), or at once when
/// 256 KiB are waiting. Writers only append, so request threads never wait on the descriptor. ``hurry()`` has the
/// thread write without waiting out its 20 ms (`Logger` calls it after warnings and errors); ``flush()`` writes what is
/// waiting and returns when it is written (the server calls it when it stops).
/// Lines keep their order. A crash can lose the last 20 ms of lines.
///
/// When the descriptor stalls (a full pipe nobody reads), lines wait up to `capacity` bytes; whole
/// lines past it are dropped and counted (``droppedLines``, in `/metrics`). Once writing goes on,
/// one warning line with their number takes their place among the lines.
final class LogWriter: @unchecked Sendable {
    // @unchecked: `buffer`, `threadStarted` and the drop counts are touched with `mutex` held; `spare` with
    // `writing` held (which also serialises writes to `fd`). Lock order: `writing`, then `mutex`.
    static let standardError = LogWriter(fd: 2)

    private let fd: Int32
    private let mutex = ConditionMutex()
    private let linesWaiting = ConditionMutex.Condition()
    private let writing = Lock(())
    /// Lines waiting to be written.
    private var buffer: [UInt8]
    /// The other buffer: the lines being written, then empty until the next flush swaps it in.
    /// Swapping two buffers that keep their capacity means writers append into memory that is
    /// already allocated and mapped. Copying the buffer out and emptying it (as this type first
    /// did) made every flush allocate a fresh buffer, which the writers then page-faulted into
    /// with `mutex` held; a request thread preempted in such a fault held up every other
    /// request's log line (waits of 20+ ms on the request threads during a log-in storm).
    private var spare: [UInt8]
    private var threadStarted = false
    /// Set by ``hurry()``: the thread writes without gathering more lines first.
    private var hurried = false
    /// The thread writes at once, without waiting out its 20 ms, when this much is waiting.
    private let limit = 256 << 10
    /// Most bytes waiting; a line that would pass it is dropped.
    private let capacity: Int
    /// Lines dropped since the last warning about them, and in all.
    private var droppedSinceWarning = 0
    private var droppedTotal = 0

    init(fd: Int32, capacity: Int = 4 << 20) {
        self.fd = fd
        self.capacity = capacity
        // Virtual until written to: a buffer's pages become resident as lines first fill them.
        buffer = []
        buffer.reserveCapacity(limit + (16 << 10))
        spare = []
        spare.reserveCapacity(limit + (16 << 10))
    }

    /// Appends `line`; never writes itself, so it never waits on the file descriptor.
    func write(_ line: UnsafeRawBufferPointer) {
        mutex.withLock {
            let before = buffer.count
            if before == 0 && !threadStarted {
                threadStarted = true
                Thread { [self] in run() }.start()
            }
            guard before + line.count <= capacity else {
                droppedSinceWarning += 1
                droppedTotal += 1
                return
            }
            buffer.append(contentsOf: line)
            if before == 0 || (before < limit && buffer.count >= limit) { linesWaiting.signal() }
        }
    }

    /// Lines dropped because the buffer was full, since the start.
    var droppedLines: Int { mutex.withLock { droppedTotal } }

    /// Bytes waiting to be written (never more than the capacity).
    var bufferedBytes: Int { mutex.withLock { buffer.count } }

    /// Has the thread write what is waiting without gathering more lines first; never waits on the
    /// descriptor, so a stalled standard error cannot hold up the caller.
    func hurry() {
        mutex.withLock {
            hurried = true
            linesWaiting.signal()
        }
    }

    /// Writes everything buffered, now; waits while the descriptor stalls.
    func flush() {
        writing.withLock { _ in
            mutex.withLock {
                swap(&buffer, &spare)
                // The dropped lines came after those being written now and before any still to come.
                if droppedSinceWarning > 0 {
                    buffer.append(contentsOf: Self.droppedWarning(droppedSinceWarning))
                    droppedSinceWarning = 0
                    linesWaiting.signal()
                }
            }
            spare.withUnsafeBufferPointer { pointer in
                var offset = 0
                while offset < pointer.count {
                    let written = Foundation.write(fd, pointer.baseAddress! + offset, pointer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            spare.removeAll(keepingCapacity: true)
        }
    }

    /// The warning line, in `Logger`'s format, for `count` dropped lines.
    private static func droppedWarning(_ count: Int) -> [UInt8] {
        var line = Array(#"{"time":""#.utf8)
        ISO8601.write(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)), to: &line)
        line += Array(#"","level":"warn","msg":"log lines dropped: standard error did not keep up","count":\#(count)}"#.utf8)
        line.append(0x0A)
        return line
    }

    private func run() {
        Thread.current.name = "gh-log"
        while true {
            mutex.withLock {
                while buffer.isEmpty { mutex.wait(linesWaiting) }
                // Let the lines of the next 20 ms join these, unless the buffer fills first.
                let deadline = ContinuousClock.now + .milliseconds(20)
                while buffer.count < limit, !hurried, ContinuousClock.now < deadline {
                    _ = mutex.wait(linesWaiting, seconds: 0.02)
                }
                hurried = false
            }
            flush()
        }
    }
}
