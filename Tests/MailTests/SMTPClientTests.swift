import Curl
import Foundation
import Mail
import Synchronization
import TestSupport
import Testing

/// SMTPClient (libcurl) against a real SMTP server (aiosmtpd) in every mode.
@Suite(.timeLimit(.minutes(2)))
struct SMTPClientTests {
    static let user = "mailer", password = "s3cret+pass/word"
    /// `password` percent-encoded for the URL.
    static let encodedPassword = "s3cret%2Bpass%2Fword"

    static func message(to recipient: String = "ann@example.com") -> ComposedMail {
        let composer = MailComposer(appName: "Gatehouse", from: try! MailAddress(parsing: "Gatehouse <no-reply@example.com>"))
        return composer.compose(
            MailContent(
                kind: .resetPassword, language: .korean, recipient: recipient, username: "ann",
                link: "https://auth.example.com/reset-password?token=abc&username=ann"),
            messageId: "<\(UInt64.random(in: 0...UInt64.max))@example.com>", date: Date())
    }

    static func send(_ client: SMTPClient, _ mail: ComposedMail = message()) throws(SMTPError) {
        try client.send(from: "no-reply@example.com", to: ["ann@example.com"], message: mail.data)
    }

    @Test(arguments: [SMTPTestServer.Mode.plain, .starttls, .smtps])
    func deliversInEveryMode(mode: SMTPTestServer.Mode) throws {
        let server = try SMTPTestServer.start(mode: mode)
        defer { server.destroy() }
        let client = try SMTPClient(url: server.url, caFile: server.caFile)
        let mail = Self.message()
        try Self.send(client, mail)
        let received = try server.messages()
        #expect(received.count == 1)
        let message = try #require(received.first)
        #expect(message.mailFrom == "no-reply@example.com")
        #expect(message.rcptTo == ["ann@example.com"])
        #expect(message.tls == (mode != .plain), "STARTTLS is used when offered")
        #expect(message.subject == mail.subject)
        #expect(message.text == mail.text)
        #expect(message.html == mail.html)
        #expect(message.defects == [])
        // What arrives is what was composed (curl's dot-stuffing undone by the server).
        #expect(message.data == mail.data)
    }

    @Test(arguments: [SMTPTestServer.Mode.starttls, .smtps])
    func authenticatesOverTLS(mode: SMTPTestServer.Mode) throws {
        let server = try SMTPTestServer.start(mode: mode, credentials: (Self.user, Self.password))
        defer { server.destroy() }
        let scheme = mode == .smtps ? "smtps" : "smtp"
        #expect(server.url == "\(scheme)://\(Self.user):\(Self.encodedPassword)@127.0.0.1:\(server.port)")
        let client = try SMTPClient(url: server.url, caFile: server.caFile)
        #expect(client.description == "\(scheme)://127.0.0.1:\(server.port)")
        try Self.send(client)
        let message = try #require(try server.messages().first)
        #expect(message.authenticatedAs == Self.user)
        #expect(message.tls)
        #expect(try server.authAttempts().map(\.tls) == [true])
    }

    @Test func aWrongPasswordFailsWithoutShowingIt() throws {
        let server = try SMTPTestServer.start(mode: .starttls, credentials: (Self.user, Self.password))
        defer { server.destroy() }
        let wrong = "wrong+Secret%2F99"
        let client = try SMTPClient(url: "smtp://\(Self.user):\(wrong)@127.0.0.1:\(server.port)", caFile: server.caFile)
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(error.responseCode == 535)
        #expect(!error.isPermanent, "the configuration's fault, not the message's: retry once it is fixed")
        #expect(error.description.contains("Login denied"))
        for secret in [wrong, "wrong+Secret/99", Self.password] { #expect(!error.description.contains(secret)) }
        #expect(try server.messages().isEmpty)
        #expect(try server.authAttempts().map(\.ok) == [false])
    }

    @Test func credentialsRequireTLSWhenTheServerOffersNone() throws {
        // The server offers AUTH in clear; the client must not use it.
        let server = try SMTPTestServer.start(mode: .plain, credentials: (Self.user, Self.password))
        defer { server.destroy() }
        let refused = #expect(throws: SMTPError.self) { try SMTPClient(url: server.url) }
        #expect(refused?.description == "?tls=none cannot be used with a user or password: credentials need TLS")
        let client = try SMTPClient(url: "smtp://\(Self.user):\(Self.encodedPassword)@127.0.0.1:\(server.port)")
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(!error.isPermanent)
        #expect(!error.description.contains(Self.password))
        #expect(try server.authAttempts().isEmpty, "no credentials were sent")
        #expect(try server.messages().isEmpty)
    }

    /// Without credentials too, `smtp://` requires STARTTLS: a server (or an on-path attacker
    /// stripping the offer) that does not offer it gets no message, so reset links never cross the
    /// network in clear. Plain SMTP needs `?tls=none`, to a loopback host only.
    @Test func starttlsIsRequiredUnlessTheURLSaysTLSNone() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        let client = try SMTPClient(url: "smtp://127.0.0.1:\(server.port)")
        #expect(client.security == .startTLS)
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(!error.isPermanent, "the server's configuration, not the message: kept for a later try")
        #expect(try server.messages().isEmpty)
        let plain = try SMTPClient(url: "smtp://127.0.0.1:\(server.port)?tls=none")
        #expect(plain.security == .none && plain.description == "smtp://127.0.0.1:\(server.port)?tls=none")
        try Self.send(plain)
        #expect(try server.messages().map(\.tls) == [false])
    }

    @Test(arguments: [
        ("smtp://mail.example.com", SMTPClient.Security.startTLS), ("smtp://user:pw@mail.example.com:587", .startTLS),
        ("smtps://mail.example.com", .implicitTLS), ("smtp://127.0.0.1:25?tls=none", .none), ("smtp://127.0.0.2?tls=none", .none),
        ("smtp://localhost:2525?tls=none", .none), ("smtp://LOCALHOST?tls=none", .none), ("smtp://[::1]:25?tls=none", .none),
    ])
    func securityFollowsTheURL(url: String, expected: SMTPClient.Security) throws {
        #expect(try SMTPClient(url: url).security == expected)
    }

    @Test(arguments: [
        ("smtp://mail.example.com?tls=none", "allowed only to a loopback host (127.0.0.0/8, ::1, localhost), not mail.example.com"),
        ("smtp://10.0.0.5:25?tls=none", "allowed only to a loopback host"),
        ("smtp://127.0.0.1.example.com?tls=none", "allowed only to a loopback host"),
        ("smtps://127.0.0.1?tls=none", "?tls=none is for smtp:// URLs"),
        ("smtp://user:hunter2@127.0.0.1?tls=none", "credentials need TLS"),
        ("smtp://127.0.0.1?tls=off", "only query may be ?tls=none"),
        ("smtp://127.0.0.1?tls=none&x=1", "only query may be ?tls=none"),
    ])
    func plainSMTPIsRefusedExceptToALoopbackHost(url: String, expected: String) {
        let error = #expect(throws: SMTPError.self) { try SMTPClient(url: url) }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test func anUntrustedCertificateFails() throws {
        let server = try SMTPTestServer.start(mode: .smtps)
        defer { server.destroy() }
        let error = try #require(throws: SMTPError.self) { try Self.send(SMTPClient(url: server.url)) }
        #expect(!error.isPermanent)
        #expect(try server.messages().isEmpty)
        // STARTTLS offered with a certificate that does not verify: no fallback to plain text.
        let starttls = try SMTPTestServer.start(mode: .starttls)
        defer { starttls.destroy() }
        #expect(throws: SMTPError.self) { try Self.send(SMTPClient(url: starttls.url)) }
        #expect(try starttls.messages().isEmpty)
    }

    @Test func aServerThatIsDownIsATemporaryFailureAndBackAgainDelivers() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        let client = try SMTPClient(url: server.url, timeout: 10)
        server.stop()
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(!error.isPermanent)
        #expect(error.responseCode == nil)
        #expect(error.description.contains("curl error 7"), "\(error)")
        try server.restart()
        try Self.send(client)
        #expect(try server.messages().count == 1)
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        // Never accepted: the kernel completes the handshake, and no greeting ever comes.
        let listener = try LoopbackListener()
        let client = try SMTPClient(url: "smtp://127.0.0.1:\(listener.port)", timeout: 1)
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(!error.isPermanent)
        #expect(error.description.contains("curl error 28"), "\(error)")
    }

    @Test func sendsFromSeveralThreadsAtOnce() throws {
        let server = try SMTPTestServer.start(mode: .starttls)
        defer { server.destroy() }
        let client = try SMTPClient(url: server.url, caFile: server.caFile)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do { try Self.send(client) } catch { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try server.messages().count == 8)
    }

    @Test func aRefusedRecipientIsPermanent() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        try server.setBehaviour(.refuseRecipients)
        let error = try #require(throws: SMTPError.self) { try Self.send(SMTPClient(url: server.url)) }
        #expect(error.isPermanent)
        #expect(error.responseCode == 550)
        #expect(error.description.contains("550"))
        #expect(try server.messages().isEmpty)
    }

    @Test func aTemporaryRefusalIsTemporaryAndALaterTryDelivers() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        let client = try SMTPClient(url: server.url)
        try server.setBehaviour(.failTemporarily)
        let error = try #require(throws: SMTPError.self) { try Self.send(client) }
        #expect(!error.isPermanent)
        #expect(error.responseCode == 451)
        try server.setBehaviour(.accept)
        try Self.send(client)
        #expect(try server.messages().count == 1)
    }

    @Test func sendsToSeveralRecipients() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        try SMTPClient(url: server.url).send(from: "a@example.com", to: ["b@example.com", "c@example.com"], message: Self.message().data)
        #expect(try server.messages().first?.rcptTo == ["b@example.com", "c@example.com"])
    }

    @Test func linesStartingWithADotArriveUnchanged() throws {
        let server = try SMTPTestServer.start(mode: .plain)
        defer { server.destroy() }
        let message = Array("Subject: dots\r\n\r\n.hidden\r\n..two\r\n.\r\nend\r\n".utf8)
        try SMTPClient(url: server.url).send(from: "a@example.com", to: ["b@example.com"], message: message)
        #expect(try server.messages().first?.data == message)
    }

    @Test(arguments: [
        (["ann@example.com\r\nRCPT TO:<eve@example.com>"], "no-reply@example.com"), (["<ann@example.com>"], "a@b"),
        ([], "a@b"), (["ann@example.com"], ""),
    ] as [([String], String)])
    func addressesThatWouldChangeTheCommandAreRefused(to: [String], from: String) throws {
        let client = try SMTPClient(url: "smtp://127.0.0.1:1")
        let error = try #require(throws: SMTPError.self) { try client.send(from: from, to: to, message: [65]) }
        #expect(error.isPermanent)
    }

    @Test(arguments: [
        ("http://mail.example.com", "scheme must be smtp or smtps, not \"http\""),
        ("smtpx://mail.example.com", "scheme must be smtp or smtps"),
        ("mail.example.com:25", "is not of the form"),
        ("", "is not of the form"),
        ("smtp://", "is not of the form"),
        ("smtp://user:hunter2@/", "is not of the form"),
        ("smtp://mail.example.com:99999", "is not of the form"),
        ("smtp://mail.example.com?x=1", "only query may be ?tls=none"),
        ("smtp://user:hunter2@mail.example.com#frag", "must not have a fragment"),
    ])
    func badURLsAreRefusedByName(url: String, expected: String) {
        let error = #expect(throws: SMTPError.self) { try SMTPClient(url: url) }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test func aZeroTimeoutIsRefused() {
        #expect(throws: SMTPError.self) { try SMTPClient(url: "smtp://127.0.0.1", timeout: 0) }
    }
}
