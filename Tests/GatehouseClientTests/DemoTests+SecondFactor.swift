import OneTimeCodes
import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// The demo's second factor: `totp-enroll` (the URI, the code asked for, the recovery codes),
/// `login` asking for the code when the server answers -1, and `totp-disable`.
extension DemoTests {
    /// Runs the demo until its output contains `prompt`, then writes `answer(outputSoFar)` and
    /// ends the input; returns the whole run.
    func demo(
        _ arguments: [String], server: InProcessServer, sessionDirectory: URL, answering prompt: String,
        with answer: (String) throws -> String
    ) throws -> Run {
        let (process, output, error, stdin) = try launch(arguments, server: server, sessionDirectory: sessionDirectory)
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(prompt) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the demo ended without asking
            seen.append(chunk)
        }
        stdin.fileHandleForWriting.write(Data((try answer(String(decoding: seen, as: UTF8.self)) + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: seen, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
    }

    @Test func totpEnrolLogInWithTheCodeAndDisable() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        #expect(try demo(["register", "alice", "larch-ridge-11"], server: server, sessionDirectory: sessions).status == 0)
        // A session from before the enrolment: made with the password only.
        let before = sessions.deletingLastPathComponent().appendingPathComponent("before")
        #expect(try demo(["login", "alice", "larch-ridge-11"], server: server, sessionDirectory: before).status == 0)

        var app: TOTP? = nil
        var step: Int64 = 0
        let enrolled = try demo(["totp-enroll"], server: server, sessionDirectory: sessions, answering: "Code the app shows: ") { output in
            let secret = try #require(output.firstMatch(of: /otpauth:\/\/totp\/Gatehouse:alice\?secret=([A-Z2-7]{32})&issuer=Gatehouse\n/)?.1)
            #expect(output.contains("Secret: \(secret)\n"))
            app = TOTP(secret: try #require(Base32.decode(String(secret))))
            step = app!.step(at: Date())
            return app!.code(step: step)
        }
        #expect(enrolled.status == 0, "\(enrolled.error)")
        let recovery = enrolled.output.split(separator: "\n").filter { $0.wholeMatch(of: /\ \ [A-Za-z0-9]{5}-[A-Za-z0-9]{5}/) != nil }
        #expect(recovery.count == 10, "\(enrolled.output)")
        let totp = try #require(app)

        let refused = try demo(["totp-disable"], server: server, sessionDirectory: before)
        #expect(refused.status == 1)
        #expect(refused.output.hasPrefix("Turning it off needs a log-in made with a code"), "\(refused.output)")

        #expect(try demo(["logout"], server: server, sessionDirectory: sessions).status == 0)
        let prompt = "Code from your authenticator app (or a recovery code): "
        let wrong = try demo(["login", "alice", "larch-ridge-11"], server: server, sessionDirectory: sessions, answering: prompt) { _ in
            totp.code(step: step + 5)
        }
        #expect(wrong.status == 1)
        #expect(wrong.error.hasPrefix("That code is wrong or was used already."))
        let loggedIn = try demo(["login", "alice", "larch-ridge-11"], server: server, sessionDirectory: sessions, answering: prompt) { _ in
            totp.code(step: step + 1)
        }
        #expect(loggedIn.status == 0, "\(loggedIn.error)")
        #expect(loggedIn.output == prompt + "Welcome alice\n")

        let disabled = try demo(["totp-disable"], server: server, sessionDirectory: sessions)
        #expect(disabled.output == "Authenticator app turned off.\n", "\(disabled.error)")
        #expect(try demo(["logout"], server: server, sessionDirectory: sessions).status == 0)
        #expect(try demo(["login", "alice", "larch-ridge-11"], server: server, sessionDirectory: sessions).output == "Welcome alice\n")
    }
}
