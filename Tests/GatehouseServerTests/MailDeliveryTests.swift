import Foundation
import GatehouseServer
import JSON
import Postgres
import ServerTestSupport
import Sodium
import Synchronization
import TestSupport
import Testing

/// Messages written to the outbox of `databaseURL`'s database, as the account operations write
/// them, links sealed under the test servers' key (the tests write the rows themselves;
/// ``AccountMailTests`` goes through the API).
struct Outbox {
    let databaseURL: String
    /// Seals and opens links as the test servers do.
    let linkBox = InProcessServer.mailLinkBox

    init(_ server: GatehouseServer) { databaseURL = server.settings.databaseURL! }
    init(databaseURL: String) { self.databaseURL = databaseURL }

    /// Inserts `count` messages (reset links by default, working for an hour) to `recipient`,
    /// each link sealed with `linkBox` (or `sealedWith`); returns their Message-IDs, oldest first.
    @discardableResult
    func insert(
        _ count: Int = 1, kind: String = "reset_password", recipient: String = "ann@example.com", username: String = "ann",
        sealedWith box: SecretBox? = nil
    ) throws -> [String] {
        let connection = try Connection(databaseURL)
        defer { connection.close() }
        return try connection.transaction { tx in
            try (1...count).map { index in
                let link = "http://127.0.0.1/reset-password?token=secret\(index)&username=\(username)"
                return try #require(try tx.queryFirst("""
                    INSERT INTO mail_outbox (
                        kind, user_id, recipient, username, language, sealed_link, link_expires_at, message_id, created_at, next_attempt_at)
                    VALUES (\(kind), 'uuuuuuuuu1', \(recipient), \(username), 'en', \((box ?? linkBox).seal(Array(link.utf8))),
                            now() + interval '1 hour', '<' || md5(random()::text) || '@gatehouse.test>', now(), now())
                    RETURNING message_id
                    """)).decode(String.self, at: 0)
            }
        }
    }

    /// Brings every pending message's next attempt forward to now (as if its retry's time had come).
    func makeDue() throws {
        let connection = try Connection(databaseURL)
        defer { connection.close() }
        _ = try connection.execute("UPDATE mail_outbox SET next_attempt_at = now() WHERE state = 'pending'")
    }

    /// (state, attempts, last_error, whether a sealed link is kept, that link opened with
    /// `linkBox`) of the message with `messageId`.
    func row(_ messageId: String) throws -> (state: String, attempts: Int, lastError: String?, sealed: Bool, link: String?) {
        let connection = try Connection(databaseURL)
        defer { connection.close() }
        let row = try #require(try connection.queryFirst(
            "SELECT state, attempts, last_error, sealed_link FROM mail_outbox WHERE message_id = \(messageId)"))
        let sealed = try row.decode([UInt8]?.self, at: 3)
        return (
            try row.decode(String.self, at: 0), Int(try row.decode(Int32.self, at: 1)), try row.decode(String?.self, at: 2),
            sealed != nil, sealed.flatMap(linkBox.open).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Every row of the outbox as JSON (bytea as hex).
    func dump() throws -> [String] {
        let connection = try Connection(databaseURL)
        defer { connection.close() }
        return try connection.query("SELECT row_to_json(m)::text FROM mail_outbox m").map { try $0.decode(String.self, at: 0) }
    }
}

extension SMTPTestServer {
    /// Message-IDs received so far, with repeats.
    func messageIds() -> [String] {
        ((try? messages()) ?? []).compactMap { $0.header("Message-ID") }
    }
}

extension LiveServer {
    /// A value of `/metrics` (nil when absent).
    func metric(_ name: String) throws -> Double? {
        let text = try get("/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }
}

/// The outbox sender against a real SMTP server (Debian's aiosmtpd, `SMTPTestServer`).
@Suite struct MailDeliveryTests {
    @Test func deliversAMessageOnceAndForgetsItsLink() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer(level: .debug) { $0.smtpURL = smtp.url }
        let outbox = Outbox(live.server)
        let ids = try outbox.insert(recipient: "ann@example.com", username: "ann")
        #expect(eventually { smtp.messageIds() == ids })
        let mail = try #require(try smtp.messages().first)
        #expect(mail.rcptTo == ["ann@example.com"] && mail.mailFrom == "no-reply@localhost")
        let lines = (mail.text ?? "").replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        #expect(lines.contains("http://127.0.0.1/reset-password?token=secret1&username=ann"), "the link alone on a line")
        #expect(lines.contains("This link works once, for 1 hour."), "\(lines)")
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        #expect(try outbox.row(ids[0]).sealed == false, "the sealed link is forgotten once sent")
        #expect(eventually { (try? live.metric("gatehouse_mail_sent_total")) == 1 })
        #expect(try live.metric("gatehouse_mail_failed_total") == 0)
        #expect(!live.logs.text.contains("secret1"), "no token in the log")
        #expect(live.logs.text.contains(#""msg":"mail delivery on""#) && live.logs.text.contains(ids[0]))
        #expect(smtp.messageIds() == ids, "sent once")
    }

    /// A link sealed under another key (an instance with a different GATEHOUSE_SECRET_KEY wrote
    /// it) cannot be opened: nothing is sent, the message is retried (an instance with the right
    /// key may send it), and neither the log nor the stored error holds the link.
    @Test func aLinkSealedUnderAnotherKeyIsNotSent() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.mailRetryBase = 600
        }
        let outbox = Outbox(live.server)
        let foreign = try outbox.insert(sealedWith: try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .mailLinks))
        let own = try outbox.insert()
        #expect(eventually { smtp.messageIds() == own })
        #expect(eventually { (try? outbox.row(foreign[0]))?.lastError != nil })
        let failed = try outbox.row(foreign[0])
        #expect(failed.state == "pending" && failed.sealed, "kept for a retry")
        #expect(failed.lastError == "the link cannot be opened: GATEHOUSE_SECRET_KEY is not the key it was sealed with")
        #expect(live.logs.text.contains("mail delivery failed, will retry") && live.logs.text.contains(foreign[0]))
        #expect(!live.logs.text.contains("secret1"))
    }

    /// SMTP down when the message is written: retried with backoff, delivered once it is back.
    @Test func deliversOnceTheSMTPServerIsBack() throws {
        let smtp = try SMTPTestServer.start()
        smtp.stop()
        let live = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.mailRetryBase = 1
        }
        let outbox = Outbox(live.server)
        let ids = try outbox.insert()
        #expect(eventually { ((try? outbox.row(ids[0]))?.attempts ?? 0) >= 2 }, "retried while down")
        let failing = try outbox.row(ids[0])
        #expect(failing.state == "pending" && failing.lastError != nil && failing.link != nil)
        #expect(try live.metric("gatehouse_mail_retries_total") ?? 0 >= 1)
        #expect(eventually { (try? live.metric("gatehouse_mail_pending")) == 1 })
        #expect(try live.metric("gatehouse_mail_oldest_pending_seconds") ?? -1 >= 0)
        #expect(live.logs.text.contains("mail delivery failed, will retry") && live.logs.text.contains(ids[0]))
        #expect(!live.logs.text.contains("secret1"))
        try smtp.restart()
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        #expect(smtp.messageIds() == ids)
        #expect(eventually { (try? live.metric("gatehouse_mail_pending")) == 0 })
    }

    /// The database goes away between the SMTP send and the record of it (a failover, played here
    /// by a trigger answering 25006 read-only as a standby does): the record is tried again until
    /// the database takes it, so the message is marked sent soon after, and sent once.
    @Test func aSentMessageIsRecordedOnceTheDatabaseIsBack() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { $0.smtpURL = smtp.url }
        let outbox = Outbox(live.server)
        let connection = try Connection(outbox.databaseURL)
        defer { connection.close() }
        try connection.unsafeExecuteScript("""
            CREATE FUNCTION test_read_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'cannot execute UPDATE in a read-only transaction' USING ERRCODE = '25006'; END $$;
            CREATE TRIGGER test_read_only BEFORE UPDATE ON mail_outbox FOR EACH ROW
                WHEN (NEW.state = 'sent') EXECUTE FUNCTION test_read_only();
            """)
        let ids = try outbox.insert()
        #expect(eventually { smtp.messageIds() == ids })
        #expect(eventually { live.logs.text.contains("mail sent but not recorded yet, trying again") })
        #expect(try outbox.row(ids[0]).state == "pending")
        try connection.unsafeExecuteScript("DROP TRIGGER test_read_only ON mail_outbox")
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        #expect(smtp.messageIds() == ids, "sent once")
    }

    /// 451 is temporary as well.
    @Test func temporaryRefusalIsRetried() throws {
        let smtp = try SMTPTestServer.start()
        try smtp.setBehaviour(.failTemporarily)
        let live = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.mailRetryBase = 1
        }
        let outbox = Outbox(live.server)
        let ids = try outbox.insert()
        #expect(eventually { (try? outbox.row(ids[0]))?.lastError != nil })
        let refused = try outbox.row(ids[0])
        #expect(refused.lastError?.contains("451") == true, "\(refused)")
        try smtp.setBehaviour(.accept)
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        #expect(smtp.messageIds() == ids)
    }

    /// A 5xx refusal can never succeed: the message is given up at once, counted, and logged
    /// with its Message-ID and the error.
    @Test func permanentFailureIsGivenUpAtOnce() throws {
        let smtp = try SMTPTestServer.start()
        try smtp.setBehaviour(.refuseRecipients)
        let live = try LiveServer { $0.smtpURL = smtp.url }
        let outbox = Outbox(live.server)
        let ids = try outbox.insert()
        #expect(eventually { (try? outbox.row(ids[0]).state) == "failed" })
        let failed = try outbox.row(ids[0])
        #expect(failed.attempts == 1 && !failed.sealed && failed.lastError?.contains("550") == true, "\(failed)")
        #expect(eventually { (try? live.metric("gatehouse_mail_failed_total")) == 1 })
        #expect(try live.metric("gatehouse_mail_retries_total") == 0)
        let line = try #require(live.logs.lines.first { $0.contains("mail delivery failed, given up") })
        #expect(line.contains(ids[0]) && line.contains("550") && !line.contains("secret1"))
        #expect(smtp.messageIds().isEmpty)
    }

    /// A row this build cannot render (a kind from a newer version, say) is given up, not retried.
    @Test func unknownKindIsGivenUp() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { $0.smtpURL = smtp.url }
        let outbox = Outbox(live.server)
        let ids = try outbox.insert(kind: "newsletter")
        let later = try outbox.insert()
        #expect(eventually { (try? outbox.row(later[0]).state) == "sent" })
        #expect(eventually { (try? outbox.row(ids[0]).state) == "failed" })
        #expect(try outbox.row(ids[0]).lastError == "unknown kind or language")
        #expect(smtp.messageIds() == later)
    }

    /// Two instances on one database, messages written while both run: each delivered exactly once.
    @Test func twoInstancesDeliverEachMessageOnce() throws {
        let smtp = try SMTPTestServer.start()
        let first = try LiveServer { $0.smtpURL = smtp.url }
        let second = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.databaseURL = first.server.settings.databaseURL
        }
        let outbox = Outbox(first.server)
        var ids: [String] = []
        for _ in 0..<8 { ids += try outbox.insert(25) }
        #expect(eventually(timeout: .seconds(120)) { smtp.messageIds().count >= ids.count })
        let sentByFirst = try #require(try first.metric("gatehouse_mail_sent_total"))
        let sentBySecond = try #require(try second.metric("gatehouse_mail_sent_total"))
        #expect(sentByFirst + sentBySecond == Double(ids.count))
        let received = smtp.messageIds()
        #expect(received.count == ids.count && Set(received) == Set(ids), "each Message-ID once")
    }

    /// Stopping the server stops the sender: a message written afterwards waits for the next instance.
    @Test func stopsWithTheServer() throws {
        let smtp = try SMTPTestServer.start()
        let stopped = try InProcessServer { $0.smtpURL = smtp.url }
        let outbox = Outbox(stopped.server)
        stopped.stop()
        let ids = try outbox.insert()
        let next = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.databaseURL = outbox.databaseURL
        }
        #expect(eventually { smtp.messageIds() == ids })
        #expect(eventually { (try? next.metric("gatehouse_mail_sent_total")) == 1 })
    }

    /// `kill -9` of a `gatehouse` process with undelivered mail (SMTP down, the first attempt
    /// failed): a new process delivers it, once. (A message the killed process had claimed is due
    /// again after the claim's lease: ``OutboxStoreTests/expiredLeaseMakesAMessageDueAgain()``.)
    @Test func deliveredAfterKillAndRestart() throws {
        let smtp = try SMTPTestServer.start()
        smtp.stop()
        let database = try TestDatabase.create()
        let environment = childEnvironment([
            "DATABASE_URL": database.connectionString, "GATEHOUSE_SECRET_KEY": InProcessServer.secretKey,
            "GATEHOUSE_SMTP_URL": smtp.url, "GATEHOUSE_MAIL_RETRY_BASE": "600",
            "GATEHOUSE_HASH_COST": "minimum",
        ])
        let first = try Child(["--port", "0"], environment: environment)
        defer { first.kill() }
        try #require(first.stdout.wait(timeout: 60) { $0.contains("listening") } != nil, "stderr: \(first.stderr.text)")
        let outbox = Outbox(databaseURL: database.connectionString)
        let ids = try outbox.insert()
        // The failure recorded, the next attempt 10 minutes away: no claim is in progress.
        #expect(eventually { (try? outbox.row(ids[0]))?.lastError != nil }, "stderr: \(first.stderr.text)")
        kill(first.pid, SIGKILL)
        #expect(first.waitForExit(timeout: 30) == 128 + SIGKILL)
        #expect(try outbox.row(ids[0]).state == "pending")

        try smtp.restart()
        try outbox.makeDue()
        let second = try Child(["--port", "0"], environment: environment)
        defer { second.kill() }
        #expect(eventually { smtp.messageIds() == ids }, "stderr: \(second.stderr.text)")
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        #expect(try outbox.row(ids[0]).attempts == 2)
        #expect(!(first.stderr.text + second.stderr.text).contains("secret1"), "no token in the log")
    }

    @Test func badSMTPURLIsAStartErrorWithoutThePassword() throws {
        let error = #expect(throws: GatehouseServer.StartError.self) {
            _ = try LiveServer { $0.smtpURL = "ftp://mailer:sekrit-pw@mail.example.com" }
        }
        let text = try #require(error).description
        #expect(text.contains("GATEHOUSE_SMTP_URL") && !text.contains("sekrit-pw"), "\(text)")
    }

    /// Plain SMTP (`?tls=none`) to a host other than this machine stops start-up, saying why.
    @Test func plainSMTPToAnotherHostIsAStartError() throws {
        let error = #expect(throws: GatehouseServer.StartError.self) {
            _ = try LiveServer { $0.smtpURL = "smtp://mail.example.com:25?tls=none" }
        }
        let text = try #require(error).description
        #expect(text.hasPrefix("GATEHOUSE_SMTP_URL (--smtp-url): ?tls=none (plain SMTP) is allowed only to a loopback host"), "\(text)")
    }

    @Test func badMailFromIsAStartError() throws {
        let error = #expect(throws: GatehouseServer.StartError.self) {
            _ = try LiveServer { $0.mailFrom = "Support <support@@example.com>" }
        }
        #expect(try #require(error).description.hasPrefix("GATEHOUSE_MAIL_FROM"))
    }

    @Test func withoutSMTPStartUpSaysWhereTheMailIs() throws {
        let live = try LiveServer { $0.devMailbox = .on }
        let lines = live.logs.lines.filter { $0.contains("no SMTP server configured") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("http://127.0.0.1:\(live.server.port)/_dev/mailbox") == true, "\(lines)")
        #expect(try live.metric("gatehouse_mail_sent_total") == nil, "no sender, no counts")
        // With an external database the mailbox is off unless asked for, and start-up says so.
        let external = try LiveServer()
        let off = external.logs.lines.filter { $0.contains("no SMTP server configured") }
        #expect(off.count == 1 && off[0].contains("the dev mailbox is off (GATEHOUSE_DEV_MAILBOX)"), "\(off)")
    }
}

/// The whole path over HTTP: `resetPassword` writes the message, the sender delivers it, the link
/// in the delivered mail resets the password, and the "password changed" notice follows.
@Suite struct AccountMailTests {
    static let signUp = """
        mutation S($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) { viewer { sessionToken } } }
        """
    static let reset = "mutation R($e: String!) { resetPassword(input: {email: $e}) { ok } }"
    static let confirm = """
        mutation C($u: String!, $p: String!, $t: String!) { confirmResetPassword(input: {username: $u, password: $p, token: $t}) { ok } }
        """

    @Test func resetPasswordMailCarriesAWorkingLink() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.appName = "Acme"
            settings.mailFrom = "Acme Support <support@acme.test>"
        }
        let signUp = try live.graphQL(Self.signUp, variables: ["f": ["username": "carol", "password": "larch-ridge-11", "email": "carol@example.com"]])
        #expect(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue != nil, "\(signUp.text)")
        let reset = try live.graphQL(Self.reset, variables: ["e": "CAROL@example.com"], headers: [("Accept-Language", "fr-CA, en;q=0.5")])
        #expect(try reset.json().at("data", "resetPassword", "ok") == true, "\(reset.text)")

        #expect(eventually { smtp.messageIds().count == 1 })
        let mail = try #require(try smtp.messages().first)
        #expect(mail.rcptTo == ["carol@example.com"] && mail.mailFrom == "support@acme.test")
        #expect(mail.header("From")?.contains("Acme Support") == true && mail.contentType == "multipart/alternative")
        #expect(mail.defects.isEmpty, "\(mail.defects)")
        #expect(mail.subject.contains("Acme"), "\(mail.subject)")
        let prefix = "http://localhost:\(live.server.port)/reset-password?token="
        let lines = (mail.text ?? "").replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
        let link = try #require(lines.first { $0.hasPrefix(prefix) }, "the link alone on a line: \(lines)")
        #expect(link.hasSuffix("&username=carol"))
        let token = String(link.dropFirst(prefix.count).prefix { $0 != "&" })
        #expect(!live.logs.text.contains(token), "no token in the log")
        #expect(lines.contains("Ce lien ne sert qu'une fois, pendant 1 heure."), "how long the link works: \(lines)")
        let outbox = Outbox(live.server)
        #expect(eventually { (try? outbox.dump())?.first?.contains(#""state":"sent""#) == true })
        #expect(try outbox.dump().allSatisfy { !$0.contains(token) && $0.contains(#""sealed_link":null"#) }, "forgotten once sent")

        let confirm = try live.graphQL(Self.confirm, variables: ["u": "carol", "p": "new password 11", "t": .string(token)])
        #expect(try confirm.json().at("data", "confirmResetPassword", "ok") == true, "\(confirm.text)")
        #expect(eventually { smtp.messageIds().count == 2 }, "the password-changed notice")
        let notice = try #require(try smtp.messages().last)
        #expect(notice.rcptTo == ["carol@example.com"] && notice.text?.contains("reset-password?token=") == false)
        #expect(Set(smtp.messageIds()).count == 2, "distinct Message-IDs")
    }
}
