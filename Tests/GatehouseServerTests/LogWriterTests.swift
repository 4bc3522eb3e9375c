import Foundation
@testable import GatehouseServer
import Testing

/// Buffered log lines reach their file descriptor in order: soon by themselves, at once on flush.
@Suite struct LogWriterTests {
    /// A pipe whose read end is non-blocking: `read()` returns what has arrived so far.
    final class Pipe: @unchecked Sendable {
        let readEnd: Int32, writeEnd: Int32
        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            (readEnd, writeEnd) = (fds[0], fds[1])
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        }
        deinit { close(readEnd); close(writeEnd) }
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
        for i in 0..<100 { writer.write(Array("line \(i)\n".utf8)) }
        var text = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while text.split(separator: "\n").count < 100 && ContinuousClock.now < deadline {
            usleep(5_000)
            text += pipe.read()
        }
        #expect(text == (0..<100).map { "line \($0)\n" }.joined())
    }

    @Test func flushWritesAtOnce() {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        writer.write(Array("a\n".utf8))
        writer.write(Array("b\n".utf8))
        writer.flush()
        #expect(pipe.read() == "a\nb\n")
    }

    @Test func warningsAreFlushedByTheLogger() {
        let pipe = Pipe()
        let writer = LogWriter(fd: pipe.writeEnd)
        let logger = Logger(level: .info, write: { writer.write($0) }, flush: { writer.flush() })
        logger.info("first")
        logger.warn("second")
        let lines = pipe.read().split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""msg":"first""#) == true && lines.last?.contains(#""level":"warn""#) == true)
    }
}
