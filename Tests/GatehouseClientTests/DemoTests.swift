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

    /// Starts the demo on `server` with `arguments`; its process and its output, error and input pipes.
    func launch(_ arguments: [String], server: InProcessServer, sessionDirectory: URL) throws
        -> (process: Process, output: Pipe, error: Pipe, input: Pipe)
    {
        let process = Process()
        process.executableURL = try Self.demoBinary()
        process.arguments = ["--server", server.server.endpoint, "--session-dir", sessionDirectory.path] + arguments
        let output = Pipe(), error = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        return (process, output, error, input)
    }

    /// Runs the demo with `input` on its standard input. `more`, when given, is then asked until
    /// it returns further input (such as a link mailed by what the first input did), which is
    /// written too before the input ends.
    func demo(
        _ arguments: [String], server: InProcessServer, sessionDirectory: URL, input: String? = nil,
        more: (() throws -> String?)? = nil
    ) throws -> Run {
        let (process, output, error, stdin) = try launch(arguments, server: server, sessionDirectory: sessionDirectory)
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        if let more {
            var next: String? = nil
            #expect(try eventually { next = try more(); return next != nil })
            if let next { stdin.fileHandleForWriting.write(Data(next.utf8)) }
        }
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

        let registered = try demo(["register", "alice", "larch-ridge-123", "alice@example.com"], server: server, sessionDirectory: sessions)
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
        let taken = try demo(["register", "Alice", "larch-ridge-123"], server: server, sessionDirectory: sessions)
        #expect(taken.status == 1)
        #expect(taken.error == "That username is already taken. Try another one.\n")

        let loggedIn = try demo(["login", "alice@example.com", "larch-ridge-123"], server: server, sessionDirectory: sessions)
        #expect(loggedIn.status == 0)
        #expect(loggedIn.output == "Welcome alice@example.com\n")
        #expect(try demo(["whoami"], server: server, sessionDirectory: sessions).output == "Welcome alice@example.com\n")

        let usage = try demo(["frobnicate"], server: server, sessionDirectory: sessions)
        #expect(usage.status == 2)
        #expect(usage.error.contains("usage: gatehouse-demo"))
    }

    /// `token`: an access token and the claims a service reads from it.
    @Test func tokenPrintsTheClaims() throws {
        let server = try InProcessServer { $0.accessTokenAudiences = ["orders", "reports"] }
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        let signedOut = try demo(["token"], server: server, sessionDirectory: sessions)
        #expect(signedOut.status == 1 && signedOut.output == "Not logged in.\n")
        #expect(try demo(["register", "dora", "larch-ridge-123", "dora@example.com"], server: server, sessionDirectory: sessions).status == 0)

        let run = try demo(["token", "reports"], server: server, sessionDirectory: sessions)
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Access token for reports, valid until ") == true, "\(run.output)")
        #expect(lines.count > 2 && lines[1].split(separator: ".").count == 3, "the compact token: \(run.output)")
        #expect(run.output.contains("keys at http://127.0.0.1:\(server.server.port)/.well-known/jwks.json"), "\(run.output)")
        for claim in [#""aud" : "reports""#, #""preferred_username" : "dora""#, #""email" : "dora@example.com""#, #""amr" : ["#] {
            #expect(run.output.contains(claim), "\(claim) in \(run.output)")
        }
        let unknown = try demo(["token", "billing"], server: server, sessionDirectory: sessions)
        #expect(unknown.status == 1 && unknown.error == "This server issues no access tokens for billing.\n", "\(unknown.error)")
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
            larch-ridge-123
            bob@example.com
            6
            2
            bob
            nope-nope
            2
            bob
            larch-ridge-123
            7

            """)
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.components(separatedBy: "\n")
        #expect(lines.filter { $0.hasSuffix("Welcome bob@example.com") }.count == 2, "\(run.output)")
        #expect(run.output.contains("Logged out."))
        #expect(run.output.contains("The username or password is wrong."))
        let again = try demo([], server: server, sessionDirectory: sessions, input: "7\n")
        #expect(again.output.contains("Welcome bob@example.com"), "\(again.output)")
    }

    @Test func verifyChangeEmailAndPasswordForgetAndResetAcrossRuns() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let database = try ServerDatabase(server)
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        func run(_ arguments: [String], input: String? = nil) throws -> Run {
            try demo(arguments, server: server, sessionDirectory: sessions, input: input)
        }
        let invalidLink = "That link is not valid. It may have been used already; ask for a new one.\n"

        let signedOut = try run(["passwd"])
        #expect(signedOut.status == 1)
        #expect(signedOut.output == "Not logged in.\n")
        #expect(try run(["register", "alice", "larch-ridge-11", "alice@example.com"]).status == 0)

        let sent = try run(["verify"])
        #expect(sent.status == 0, "\(sent.error)")
        #expect(sent.output == "A verification link is on its way to alice@example.com.\n")
        let verification = try #require(try database.link("verify_email", to: "alice@example.com"))
        let wrongToken = try run(["verify", "alice", "not-a-token"])
        #expect(wrongToken.status == 1)
        #expect(wrongToken.error == invalidLink)
        #expect(try run(["verify", verification.username, verification.token]).output == "Email address verified.\n")

        let email = try run(["email", "alice2@example.com"])
        #expect(email.status == 0, "\(email.error)")
        #expect(email.output == "Email changed to alice2@example.com (not verified yet).\n")
        #expect(try run(["email", "nope"]).error == "That doesn't look like an email address.\n")

        let differ = try run(["passwd"], input: "larch-ridge-11\nlarch-ridge-22\nlarch-ridge-33\n")
        #expect(differ.status == 1)
        #expect(differ.output.hasSuffix("The new passwords differ; nothing changed.\n"), "\(differ.output)")
        let passwd = try run(["passwd"], input: "larch-ridge-11\nlarch-ridge-22\nlarch-ridge-22\n")
        #expect(passwd.status == 0, "\(passwd.error)")
        #expect(passwd.output.hasSuffix("Password changed. Your other devices were signed out.\n"), "\(passwd.output)")
        #expect(try run(["whoami"]).output == "Welcome alice2@example.com\n")  // this session stays

        #expect(try run(["logout"]).status == 0)
        let forgot = try run(["forgot", "alice2@example.com"])
        #expect(forgot.output == "If an account uses alice2@example.com, a reset link is on its way.\n")
        let reset = try #require(try database.link("reset_password", to: "alice2@example.com"))
        let wrongReset = try run(["reset", "alice", "not-a-token", "larch-ridge-33"])
        #expect(wrongReset.status == 1)
        #expect(wrongReset.error == invalidLink)
        let resetDone = try run(["reset", reset.username, reset.token, "larch-ridge-33"])
        #expect(resetDone.status == 0, "\(resetDone.error)")
        #expect(resetDone.output == "Password changed. Log in with the new one.\n")
        #expect(try run(["login", "alice", "larch-ridge-33"]).output == "Welcome alice2@example.com\n")
    }

    @Test func devicesAreListedAndSignedOutThenTheAccountDeleted() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let base = TemporaryDirectory.url(prefix: "gh-demo")
        defer { try? FileManager.default.removeItem(at: base) }
        let phone = base.appendingPathComponent("phone"), laptop = base.appendingPathComponent("laptop")
        #expect(try demo(["register", "bob", "larch-ridge-11"], server: server, sessionDirectory: phone).status == 0)
        #expect(try demo(["login", "bob", "larch-ridge-11"], server: server, sessionDirectory: laptop).status == 0)

        let devices = try demo(["devices"], server: server, sessionDirectory: phone)
        #expect(devices.status == 0, "\(devices.error)")
        let lines = devices.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(devices.output)")
        #expect(lines.filter { $0.hasPrefix("* ") && $0.hasSuffix("(this device)") }.count == 1, "\(devices.output)")
        let other = try #require(lines.first { $0.hasPrefix("  ") })
        let otherId = String(other.split(separator: " ")[1])  // "  1) <objectId>  last used …"
        #expect(otherId.count == 10, "\(other)")

        let revoked = try demo(["devices", "revoke", otherId], server: server, sessionDirectory: phone)
        #expect(revoked.output == "Signed out device \(otherId).\n", "\(revoked.error)")
        let ended = try demo(["whoami"], server: server, sessionDirectory: laptop)
        #expect(ended.status == 1)
        #expect(ended.error == "Your session has ended. Please log in again.\n")
        let unknown = try demo(["devices", "revoke", "nosuch"], server: server, sessionDirectory: phone)
        #expect(unknown.status == 1)
        #expect(unknown.error == "No signed-in device has the id nosuch.\n")

        #expect(try demo(["login", "bob", "larch-ridge-11"], server: server, sessionDirectory: laptop).status == 0)
        let others = try demo(["devices", "revoke-others"], server: server, sessionDirectory: phone)
        #expect(others.output == "Signed out 1 other device.\n", "\(others.error)")
        #expect(try demo(["whoami"], server: server, sessionDirectory: laptop).status == 1)

        let kept = try demo(["delete"], server: server, sessionDirectory: phone, input: "no\n")
        #expect(kept.status == 1)
        #expect(kept.output.hasSuffix("Not deleted.\n"), "\(kept.output)")
        let wrong = try demo(["delete"], server: server, sessionDirectory: phone, input: "yes\nwrong-password\n")
        #expect(wrong.status == 1)
        #expect(wrong.error == "The username or password is wrong.\n")
        let deleted = try demo(["delete"], server: server, sessionDirectory: phone, input: "yes\nlarch-ridge-11\n")
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(deleted.output.hasSuffix("Account deleted.\n"), "\(deleted.output)")
        #expect(try demo(["whoami"], server: server, sessionDirectory: phone).output == "Not logged in.\n")
        #expect(try demo(["login", "bob", "larch-ridge-11"], server: server, sessionDirectory: phone).status == 1)
    }

    @Test func changingTheEmailAfterAnOldLogInAsksForThePassword() throws {
        // No session cache, so the aged session is read from the database at once.
        let server = try InProcessServer { $0.sessionCache = false }
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        #expect(try demo(["register", "carol", "larch-ridge-11"], server: server, sessionDirectory: sessions).status == 0)
        try ServerDatabase(server).execute("UPDATE sessions SET created_at = created_at - interval '1 day'")

        let email = try demo(["email", "carol@example.com"], server: server, sessionDirectory: sessions, input: "larch-ridge-11\n")
        #expect(email.status == 0, "\(email.error)")
        #expect(email.output.contains("For your security, enter your current password to make this change."))
        #expect(email.output.hasSuffix("Email changed to carol@example.com (not verified yet).\n"), "\(email.output)")
    }

    @Test func theInteractivePromptShowsDevicesAndResetsAPasswordFromAPastedLink() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let database = try ServerDatabase(server)
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        #expect(try demo(["register", "dana", "larch-ridge-11", "dana@example.com"], server: server, sessionDirectory: sessions).status == 0)

        // Devices (sign out none), send a verification mail, log out, forget the password, paste
        // the mailed link, set a new password, log in with it, quit.
        let run = try demo([], server: server, sessionDirectory: sessions, input: """
            1

            4

            6
            3
            dana@example.com

            """, more: { try database.link("reset_password", to: "dana@example.com").map { "\($0.url)\nlarch-ridge-22\n2\ndana\nlarch-ridge-22\n7\n" } })
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("(this device)"), "\(run.output)")
        #expect(run.output.contains("A verification link is on its way to dana@example.com."))
        #expect(run.output.contains("If an account uses dana@example.com, a reset link is on its way."))
        #expect(run.output.contains("Password changed. Log in with the new one."), "\(run.output)")
        let afterReset = run.output.components(separatedBy: "Password changed. Log in with the new one.").last ?? ""
        #expect(afterReset.contains("Welcome dana@example.com"), "\(run.output)")
        #expect(try database.link("verify_email", to: "dana@example.com") != nil)
    }
}

/// The demo's third-party commands: `guest`, `link`, `unlink`.
extension DemoTests {
    @Test func guestLinkAndUnlink() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let base = TemporaryDirectory.url(prefix: "gh-demo")
        defer { try? FileManager.default.removeItem(at: base) }
        let phone = base.appendingPathComponent("phone"), laptop = base.appendingPathComponent("laptop")
        func run(_ arguments: [String], on device: URL) throws -> Run { try demo(arguments, server: server, sessionDirectory: device) }

        let help = try run(["--help"], on: phone)
        #expect(help.output.contains("  guest  "))
        #expect(help.output.contains("  link PROVIDER ID-TOKEN  "))
        #expect(help.output.contains("  unlink PROVIDER  "))
        for command in [["link", "google", "x.y.z"], ["unlink", "google"]] {
            let signedOut = try run(command, on: phone)
            #expect(signedOut.status == 1)
            #expect(signedOut.output == "Not logged in.\n")
        }

        // A provider the server does not offer; a token the demo cannot read.
        #expect(try run(["register", "alice", "larch-ridge-11"], on: phone).status == 0)
        let payload = Data(#"{"sub":"1"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let unsupported = try run(["link", "acme", "e30.\(payload).c2ln"], on: phone)
        #expect(unsupported.status == 1)
        #expect(unsupported.error == "This server does not offer that way to log in.\n")
        let unreadable = try run(["link", "google", "not-a-token"], on: phone)
        #expect(unreadable.status == 1)
        #expect(unreadable.error == "The sign-in with google was not accepted. Sign in with google again.\n")
        #expect(try run(["logout"], on: phone).status == 0)

        // The same guest comes back on the same device; another device is another guest.
        let guest = try run(["guest"], on: phone)
        #expect(guest.status == 0, "\(guest.error)")
        let name = try #require(guest.output.wholeMatch(of: /Welcome guest ([a-z0-9]{25})\n/)?.1)
        #expect(try run(["logout"], on: phone).status == 0)
        #expect(try run(["guest"], on: phone).output == "Welcome guest \(name)\n")
        #expect(try run(["whoami"], on: phone).output == "Welcome \(name)\n")
        let other = try run(["guest"], on: laptop)
        #expect(other.status == 0)
        #expect(other.output != "Welcome guest \(name)\n")
    }
}
