import Foundation
import Synchronization

/// Paths of the package, found from this file.
enum PackagePaths {
    /// The package root (this file is `<root>/Tests/GatehouseServerTests/Subprocess.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
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

/// Accumulates a pipe's output on a background thread.
final class OutputCollector: Sendable {
    private let data = Mutex<[UInt8]>([])
    private let closed = Mutex(false)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                self.data.withLock { $0 += chunk }
            }
            self.closed.withLock { $0 = true }
        }
    }

    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
    var isClosed: Bool { closed.withLock { $0 } }

    /// Waits until `predicate` holds for the text so far, or the output ends, or the timeout.
    func wait(timeout: Double, until predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = text
            if predicate(current) { return current }
            if isClosed { return predicate(text) ? text : nil }
            usleep(20_000)
        }
        return nil
    }
}

/// A started child process with its output collected.
final class Child {
    let process = Process()
    let stdout: OutputCollector
    let stderr: OutputCollector

    init(_ arguments: [String], environment: [String: String] = childEnvironment(), directory: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: PackagePaths.gatehouse)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        stdout = OutputCollector(out)
        stderr = OutputCollector(err)
        try process.run()
    }

    /// Waits for exit; nil if it is still running at the timeout.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { return nil }
        process.waitUntilExit()
        // Let the readers drain the pipes.
        _ = stdout.wait(timeout: 5) { _ in false }
        _ = stderr.wait(timeout: 5) { _ in false }
        return process.terminationStatus
    }

    /// Kills the process if it is still running (cleanup after a failure).
    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs to completion: status, stdout, stderr.
    static func run(_ arguments: [String], environment: [String: String] = childEnvironment(), timeout: Double = 60) throws
        -> (status: Int32?, stdout: String, stderr: String)
    {
        let child = try Child(arguments, environment: environment)
        let status = child.waitForExit(timeout: timeout)
        child.kill()
        return (status, child.stdout.text, child.stderr.text)
    }
}

/// Processes whose command line mentions `text` (via `pgrep -f`).
func processes(matching text: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
    process.arguments = ["-fa", text]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return ["pgrep did not run"] }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let ownPid = String(ProcessInfo.processInfo.processIdentifier)
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        .filter { !$0.hasPrefix(ownPid + " ") && !$0.contains("pgrep") }
}
