import Foundation
import Synchronization
import TestSupport

/// Paths of the package.
enum PackagePaths {
    static let root = packageRoot.path
    /// The debug binary, built by `swift build --build-tests`.
    static let gatehouse = root + "/.build/debug/gatehouse"
    static let schema = root + "/schema.graphql"
}

/// The environment for a child process: ours without any Gatehouse setting, plus `extra`.
func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEHOUSE_") && $0.key != "DATABASE_URL" }
    environment.merge(extra) { $1 }
    return environment
}

/// Accumulates what a child writes to one pipe, on a background thread.
final class OutputCollector: Sendable {
    private let data = Mutex<[UInt8]>([])
    private let closed = Mutex(false)

    /// Takes ownership of `fd` (the read end) and closes it at end of stream.
    init(fd: Int32) {
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                self.data.withLock { $0 += chunk[..<count] }
            }
            close(fd)
            self.closed.withLock { $0 = true }
        }
    }

    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
    var isClosed: Bool { closed.withLock { $0 } }

    /// Waits until `predicate` holds for the text so far, or the output ends, or the timeout.
    func wait(timeout: Double, until predicate: (String) -> Bool) -> String? {
        var current: String?
        eventually(timeout: .seconds(timeout)) {
            let closed = isClosed  // read first: the text is then complete if it was closed
            current = predicate(text) ? text : nil
            return current != nil || closed
        }
        return current
    }
}

/// A child process started with ``spawnChild(_:environment:output:errors:)`` and reaped with
/// waitpid, its output collected.
final class Child {
    let pid: pid_t
    let stdout: OutputCollector
    let stderr: OutputCollector
    private var exitStatus: Int32?

    init(executable: String = PackagePaths.gatehouse, _ arguments: [String], environment: [String: String] = childEnvironment())
        throws
    {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Not inherited by other children (pipe2 is not imported; dup2 clears it on 1 and 2).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer {
            close(out[1])
            close(err[1])
        }
        do {
            pid = try spawnChild([executable] + arguments, environment: environment, output: out[1], errors: err[1])
        } catch {
            close(out[0])
            close(err[0])
            throw error
        }
        stdout = OutputCollector(fd: out[0])
        stderr = OutputCollector(fd: err[0])
    }

    deinit { kill() }

    /// Waits for exit; nil if it is still running at the timeout. A death by
    /// signal is reported as 128 + the signal.
    func waitForExit(timeout: Double) -> Int32? {
        eventually(timeout: .seconds(timeout)) {
            guard exitStatus == nil else { return true }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            return exitStatus != nil || (result < 0 && errno != EINTR)  // or no such child: give up
        }
        guard exitStatus != nil else { return nil }
        // Let the readers drain the pipes.
        _ = stdout.wait(timeout: 5) { _ in false }
        _ = stderr.wait(timeout: 5) { _ in false }
        return exitStatus
    }

    /// Kills and reaps the process if it is still running (cleanup after a failure).
    func kill() {
        guard exitStatus == nil else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = 128 + SIGKILL
    }

    /// Runs to completion: status, stdout, stderr.
    static func run(
        executable: String = PackagePaths.gatehouse, _ arguments: [String], environment: [String: String] = childEnvironment(),
        timeout: Double = 60
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try Child(executable: executable, arguments, environment: environment)
        let status = child.waitForExit(timeout: timeout)
        child.kill()
        return (status, child.stdout.text, child.stderr.text)
    }
}

/// Processes whose command line mentions `text` (via `pgrep -f`), other than ours.
func processes(matching text: String) -> [String] {
    guard let result = try? Child.run(executable: "/usr/bin/pgrep", ["-fa", text], timeout: 30) else {
        return ["pgrep did not run"]
    }
    let ownPid = String(ProcessInfo.processInfo.processIdentifier)
    return result.stdout.split(separator: "\n").map(String.init)
        .filter { !$0.hasPrefix(ownPid + " ") && !$0.contains("pgrep") }
}
