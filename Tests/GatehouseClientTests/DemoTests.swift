import ServerTestSupport
import TestSupport
import Foundation
import Testing

/// The built `gatehouse-demo` binary against an in-process server: the flow of a mobile app,
/// with the session kept in a file between runs.
@Suite(.timeLimit(.minutes(2)))
struct DemoTests {
    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// The demo next to the test bundle (`swift build --build-tests` builds every product).
    static func demoBinary() throws -> URL {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let candidates = [
            URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("gatehouse-demo"),
            packageRoot.appendingPathComponent(".build/debug/gatehouse-demo"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: candidates[0].path])
        }
        return found
    }

    func demo(_ arguments: [String], server: InProcessServer, sessionDirectory: URL, input: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try Self.demoBinary()
        process.arguments = ["--server", server.server.endpoint, "--session-dir", sessionDirectory.path] + arguments
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                   error: String(decoding: err, as: UTF8.self))
    }

    @Test func registerWhoamiLogoutLoginAcrossRuns() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }

        let registered = try demo(["register", "alice", "password123", "alice@example.com"], server: server, sessionDirectory: sessions)
        #expect(registered.status == 0, "\(registered.error)")
        #expect(registered.output == "Welcome alice@example.com\n")

        // The session file: owner-only, and used by the next run.
        let file = sessions.appendingPathComponent("session.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let whoami = try demo(["whoami"], server: server, sessionDirectory: sessions)
        #expect(whoami.status == 0)
        #expect(whoami.output == "Welcome alice@example.com\n")

        let loggedOut = try demo(["logout"], server: server, sessionDirectory: sessions)
        #expect(loggedOut.output == "Logged out.\n")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let nobody = try demo(["whoami"], server: server, sessionDirectory: sessions)
        #expect(nobody.status == 1)
        #expect(nobody.output == "Not logged in.\n")

        let wrong = try demo(["login", "alice", "wrong-password"], server: server, sessionDirectory: sessions)
        #expect(wrong.status == 1)
        #expect(wrong.error == "The username or password is wrong.\n")
        let taken = try demo(["register", "Alice", "password123"], server: server, sessionDirectory: sessions)
        #expect(taken.status == 1)
        #expect(taken.error == "That username is already taken. Try another one.\n")

        let loggedIn = try demo(["login", "alice@example.com", "password123"], server: server, sessionDirectory: sessions)
        #expect(loggedIn.status == 0)
        #expect(loggedIn.output == "Welcome alice@example.com\n")
        #expect(try demo(["whoami"], server: server, sessionDirectory: sessions).output == "Welcome alice@example.com\n")

        let usage = try demo(["frobnicate"], server: server, sessionDirectory: sessions)
        #expect(usage.status == 2)
        #expect(usage.error.contains("usage: gatehouse-demo"))
    }

    @Test func theInteractivePromptWalksTheSameFlow() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }

        // Register, log out, fail a log-in, log in, quit; then a new run is still logged in.
        let run = try demo([], server: server, sessionDirectory: sessions, input: """
            1
            bob
            password123
            bob@example.com
            1
            2
            bob
            nope-nope
            2
            bob
            password123
            2

            """)
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.components(separatedBy: "\n")
        #expect(lines.filter { $0.hasSuffix("Welcome bob@example.com") }.count == 2, "\(run.output)")
        #expect(run.output.contains("Logged out."))
        #expect(run.output.contains("The username or password is wrong."))
        let again = try demo([], server: server, sessionDirectory: sessions, input: "2\n")
        #expect(again.output.contains("Welcome bob@example.com"), "\(again.output)")
    }
}
