import Foundation
@testable import GatehouseServer
import Synchronization
import TestSupport
import Testing

/// Buffered log lines reach their file descriptor in order: soon by themselves, at once on flush.
@Suite struct LogWriterTests {
    /// A pipe whose read end is non-blocking: `read()` returns what has arrived so far.
    ///
    /// Its descriptors are never closed: a LogWriter's thread lives as long as the process and
    /// may still be writing when a test ends, and a closed number would soon name another test's
    /// pipe, which that thread would then write into.
    final class Pipe: @unchecked Sendable {
        let readEnd: Int32, writeEnd: Int32
        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            (readEnd, writeEnd) = (fds[0], fds[1])
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        }
        func read() -> String {
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = Foundation.read(readEnd, &chunk, chunk.count)
                if n <= 0 { break }
                out += chunk[..<n]
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    @Test func linesArriveInOrderWithoutAFlush() throws {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        for i in 0..<100 { writer.write("line \(i)\n") }
        var text = ""
        eventually {
            text += pipe.read()
            return text.split(separator: "\n").count >= 100
        }
        #expect(text == (0..<100).map { "line \($0)\n" }.joined())
    }

    @Test func flushWritesAtOnce() {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        writer.write("a\n")
        writer.write("b\n")
        writer.flush()
        #expect(pipe.read() == "a\nb\n")
    }

    /// Writers on several threads while the buffers are swapped by flushes and by the writer
    /// thread: every line arrives whole, once, and each thread's lines in their order.
    @Test func concurrentWritersAndFlushesLoseNothing() throws {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        let threads = 4, lines = 2_000
        let reader = Reader(pipe: pipe)
        DispatchQueue.concurrentPerform(iterations: threads + 1) { t in
            if t == threads {
                for _ in 0..<50 { writer.flush(); usleep(200) }
            } else {
                for i in 0..<lines { writer.write("t\(t) \(i) \(String(repeating: "x", count: i % 300))\n") }
            }
        }
        writer.flush()
        let text = reader.finish()
        var next = [Int](repeating: 0, count: threads)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            let t = Int(parts[0].dropFirst())!, i = Int(parts[1])!
            #expect(i == next[t] && (parts.count == 3 ? parts[2].count : 0) == i % 300)
            next[t] = i + 1
        }
        #expect(next == [Int](repeating: lines, count: threads))
    }

    /// Drains a pipe on its own thread (the lines written here are more than a pipe buffer holds).
    final class Reader: @unchecked Sendable {
        private let pipe: Pipe
        private var text = ""
        private let done = DispatchSemaphore(value: 0)
        private let stop = Atomic<Bool>(false)
        init(pipe: Pipe) {
            self.pipe = pipe
            Thread { [self] in
                while !stop.load(ordering: .acquiring) { text += pipe.read(); usleep(1_000) }
                text += pipe.read()
                done.signal()
            }.start()
        }
        /// Stops after one last read, which gets everything already written to the pipe.
        func finish() -> String {
            stop.store(true, ordering: .releasing)
            done.wait()
            return text
        }
    }

    /// A pipe nobody reads: the buffer stops at its capacity, whole lines past it are dropped and
    /// counted; once the pipe is drained, a warning with their number follows the lines written.
    @Test func aStalledDescriptorCapsTheBuffer() throws {
        let pipe = Pipe()
        let capacity = 64 << 10
        let writer = LogWriter(fd: pipe.writeEnd, capacity: capacity)
        let line = String(repeating: "x", count: 99) + "\n"
        var written = 0
        // The pipe (64 KiB), the batch being written and the capacity fill; then lines are dropped.
        while writer.droppedLines < 1000 {
            writer.write(line)
            written += 1
            #expect(writer.bufferedBytes <= capacity)
            try #require(written < 1_000_000, "lines are never dropped")
        }
        #expect(writer.bufferedBytes % line.utf8.count == 0, "whole lines only")
        let dropped = writer.droppedLines
        var text = ""
        eventually(timeout: .seconds(30)) { text += pipe.read(); return text.contains("log lines dropped") && text.hasSuffix("\n") }
        let lines = text.split(separator: "\n")
        let warning = try #require(lines.last)
        #expect(warning.contains(#""level":"warn","msg":"log lines dropped: standard error did not keep up","count":\#(dropped)}"#))
        #expect(lines.dropLast().allSatisfy { $0 == line.dropLast() })
        #expect(lines.count - 1 + dropped == written)
    }

    /// A warning has the writer write at once, without waiting for it: with the pipe stalled
    /// the logging thread goes on, and the warning arrives once the pipe is read.
    @Test func warningsHurryTheWriterWithoutWaitingOnIt() {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        let logger = Logger(level: .info, write: { writer.write($0) }, hurry: { writer.hurry() }, flush: { writer.flush() })
        let line = String(repeating: "x", count: 999) + "\n"
        // Past the pipe's 64 KiB the writer's thread blocks in write(2).
        for _ in 0..<200 { writer.write(line) }
        #expect(eventually { writer.bufferedBytes == 0 })  // the thread took the batch and is stuck writing it
        let warned = Atomic(false)
        Thread {
            logger.warn("second")
            warned.store(true, ordering: .releasing)
        }.start()
        #expect(eventually { warned.load(ordering: .acquiring) })
        var text = ""
        #expect(eventually { text += pipe.read(); return text.contains(#""level":"warn","msg":"second""#) })
    }
}

extension LogWriter {
    func write(_ text: String) { Array(text.utf8).withUnsafeBytes { write($0) } }
}
