import Foundation
@testable import GatehouseServer
import HTTPServer
import JSON
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// `GET /_dev/mailbox`: served as `GATEHOUSE_DEV_MAILBOX` says, only to requests from this
/// machine, 404 to anything else; each message in its real state, a link only while it works.
@Suite struct DevMailboxTests {
    static let signUp = """
        mutation S($u: String!, $e: String!) { signUp(input: {fields: {username: $u, password: "larch-ridge-11", email: $e}}) { viewer { sessionToken } } }
        """
    static let reset = "mutation R($e: String!) { resetPassword(input: {email: $e}) { ok } }"
    static let confirm = """
        mutation C($u: String!, $t: String!) { confirmResetPassword(input: {username: $u, password: "new password 11", token: $t}) { ok } }
        """
    static let sendVerification = "mutation V($e: String!) { sendVerificationEmail(input: {email: $e}) { ok } }"
    static let verify = "mutation V($u: String!, $t: String!) { verifyEmail(input: {username: $u, token: $t}) { ok } }"

    /// Runs `document` and requires it to answer without errors.
    static func run(_ live: LiveServer, _ document: String, _ variables: JSONObject) throws {
        let response = try live.graphQL(document, variables: variables)
        #expect(try response.json()["errors"] == nil, "\(response.text)")
    }

    /// The links shown on the page (`href`s), in order.
    static func links(_ page: String) -> [String] {
        page.components(separatedBy: #"<a href=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The `token` of a link as the page shows it (`&amp;` between its query items).
    static func token(_ link: String) -> String {
        String(link.components(separatedBy: "token=")[1].prefix { $0 != "&" })
    }

    @Test func showsTheOutboxNewestFirstEscaped() throws {
        let live = try LiveServer { settings in
            settings.appName = "Acme & Co"
            settings.devMailbox = .on
        }
        let outbox = Outbox(live.server)
        let older = try outbox.insert(kind: "password_changed", recipient: "ann@example.com", username: "ann")
        let newer = try outbox.insert(kind: "password_changed", recipient: "bob@example.com", username: "<b>bob</b>")
        let response = try live.get("/_dev/mailbox")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let csp = try #require(response.header("Content-Security-Policy"))
        #expect(csp.hasPrefix("default-src 'none'; script-src '\(Pages.hash(""))'; style-src 'sha256-"), "only an empty script")
        #expect(response.header("Cache-Control") == "no-store")
        try PagesTests.expectInlineCodeAllowed(html: response.text, csp: csp)
        let page = response.text
        #expect(page.contains("<title>Acme &amp; Co dev mailbox</title>"))
        // Newest first: bob's message, then ann's.
        let bob = try #require(page.range(of: "bob@example.com"))
        let ann = try #require(page.range(of: "ann@example.com"))
        #expect(bob.lowerBound < ann.lowerBound)
        #expect(!page.contains("<b>bob</b>") && page.contains("&lt;b&gt;bob&lt;/b&gt;"))
        #expect(page.contains("password_changed") && page.contains("<dd>kept here (no SMTP server)</dd>"))
        #expect(older.count == 1 && newer.count == 1)
        // The subject and body come from the composer, in the row's language.
        #expect(page.contains("Your Acme &amp; Co password was changed"))
    }

    @Test func emptyMailbox() throws {
        let live = try LiveServer { $0.devMailbox = .on }
        let response = try live.get("/_dev/mailbox")
        #expect(response.status == 200 && response.text.contains("No messages yet."))
    }

    /// The newcomer's finding: every message showed "pending" and kept its link after use. Each
    /// message now says what became of it, and a link shows only while it works: a used reset
    /// link, a verified address's link and a reset link replaced by a newer one say so instead.
    @Test func showsEachMessagesStateAndOnlyLinksThatStillWork() throws {
        let live = try LiveServer { $0.devMailbox = .on }
        for (name, email) in [("ann", "ann@example.com"), ("bob", "bob@example.com"), ("cat", "cat@example.com")] {
            try Self.run(live, Self.signUp, ["u": .string(name), "e": .string(email)])
        }
        // Ann asks twice: the first link is replaced.
        try Self.run(live, Self.reset, ["e": "ann@example.com"])
        try Self.run(live, Self.reset, ["e": "ann@example.com"])
        // Bob resets his password with his link; Cat verifies her address with hers.
        try Self.run(live, Self.reset, ["e": "bob@example.com"])
        try Self.run(live, Self.sendVerification, ["e": "cat@example.com"])
        let before = try live.get("/_dev/mailbox").text
        let shown = Self.links(before)
        #expect(shown.count == 3, "all but Ann's first, which her second replaced: \(shown)")
        let bobLink = try #require(shown.first { $0.hasSuffix("username=bob") })
        let catLink = try #require(shown.first { $0.hasSuffix("username=cat") })
        try Self.run(live, Self.confirm, ["u": "bob", "t": .string(Self.token(bobLink))])
        try Self.run(live, Self.verify, ["u": "cat", "t": .string(Self.token(catLink))])

        let page = try live.get("/_dev/mailbox").text
        let annLinks = Self.links(page).filter { $0.hasSuffix("username=ann") }
        #expect(Self.links(page) == annLinks && annLinks.count == 1, "only Ann's newest link works: \(Self.links(page))")
        #expect(annLinks == shown.filter { $0.hasSuffix("username=ann") }, "the same link as before")
        #expect(!page.contains(Self.token(bobLink)) && !page.contains(Self.token(catLink)), "not in the text either")
        #expect(page.components(separatedBy: #"<p class="link">link used</p>"#).count == 3, "Bob's and Cat's")
        #expect(page.contains(#"<p class="link">link no longer valid: a newer one was sent, or the address changed</p>"#))
        // Five messages (four links, Bob's "password changed" notice): none merely "pending".
        #expect(page.components(separatedBy: "<dd>kept here (no SMTP server)</dd>").count == 6)
        #expect(!page.contains("<dd>pending</dd>"))
    }

    /// With an SMTP server the mailbox (when switched on) shows what became of each message, but
    /// opens no link: those go out by mail.
    @Test func withSMTPItShowsSentMessagesAndNoLinks() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { settings in
            settings.devMailbox = .on
            settings.smtpURL = smtp.url
        }
        try Self.run(live, Self.signUp, ["u": "ann", "e": "ann@example.com"])
        try Self.run(live, Self.reset, ["e": "ann@example.com"])
        #expect(eventually { smtp.messageIds().count == 1 })
        #expect(eventually { (try? live.get("/_dev/mailbox").text.contains("<dd>sent</dd>")) == true })
        let page = try live.get("/_dev/mailbox").text
        #expect(Self.links(page).isEmpty)
        #expect(page.contains(#"<p class="link">link not kept: the message was sent or given up</p>"#))
        #expect(page.contains("An SMTP server is configured (GATEHOUSE_SMTP_URL)"))
    }

    /// Where the mailbox is not served, or the request is not one it admits, the path does not
    /// exist: exactly the answer to an unknown path.
    static func expectNotFound(_ live: LiveServer, _ request: (HTTPConnection, String) throws -> RawResponse) throws {
        let connection = try live.connect()
        let mailbox = try request(connection, "/_dev/mailbox")
        let unknown = try request(connection, "/_dev/unknown")
        #expect(mailbox.status == 404 && mailbox.text == unknown.text)
        #expect(mailbox.headers.map(\.name).sorted() == unknown.headers.map(\.name).sorted())
    }

    /// `auto` with an external database (as every test server has), with or without SMTP, and `off`.
    @Test(arguments: [(DevMailboxMode.auto, false), (.off, false), (.auto, true), (.off, true)])
    func notServedUnlessTheModeSaysSo(mode: DevMailboxMode, withSMTP: Bool) throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { settings in
            settings.devMailbox = mode
            if withSMTP { settings.smtpURL = smtp.url }
        }
        try Self.expectNotFound(live) { connection, path in try connection.request("GET", path) }
    }

    /// A proxy on this machine forwards requests from anywhere from a loopback address: any
    /// header a proxy adds means the request is not this machine's.
    @Test(arguments: [
        ("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=203.0.113.9"), ("X-Real-IP", "203.0.113.9"),
        ("x-forwarded-for", "127.0.0.1"), ("X-Forwarded-Host", "auth.example.com"), ("X-Forwarded-Proto", "https"),
    ])
    func notServedThroughAProxy(header: String, value: String) throws {
        let live = try LiveServer { $0.devMailbox = .on }
        try Self.expectNotFound(live) { connection, path in try connection.request("GET", path, headers: [(header, value)]) }
        #expect(try live.get("/_dev/mailbox").status == 200, "the same request without the header is served")
    }

    /// A page elsewhere that rebinds its name to 127.0.0.1 sends its own name as Host.
    @Test(arguments: ["evil.example", "evil.example:1337", "127.0.0.1.evil.example", "0.0.0.0", "192.0.2.2:1337"])
    func notServedToAnotherHostName(host: String) throws {
        let live = try LiveServer { $0.devMailbox = .on }
        try Self.expectNotFound(live) { connection, path in
            try connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            return try connection.readResponse()
        }
    }

    @Test func noCORSHeadersEvenForAnAllowedOrigin() throws {
        let live = try LiveServer { settings in
            settings.devMailbox = .on
            settings.corsOrigins = ["*"]
        }
        let response = try live.get("/_dev/mailbox", headers: [("Origin", "https://anywhere.example")])
        #expect(response.status == 200)
        #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        #expect(try live.get("/health", headers: [("Origin", "https://anywhere.example")]).header("Access-Control-Allow-Origin") != nil)
    }

    @Test(arguments: [
        (DevMailboxMode.auto, true, false, true), (.auto, false, false, false), (.auto, true, true, false),
        (.on, false, true, true), (.on, true, false, true), (.off, true, false, false),
    ])
    func servedAsTheModeSays(mode: DevMailboxMode, embedded: Bool, smtp: Bool, served: Bool) {
        #expect(DevMailbox.isServed(mode: mode, embeddedDatabase: embedded, smtpConfigured: smtp) == served)
    }

    /// The peer (a loopback address, also IPv4-mapped), the headers (none a proxy adds) and the
    /// one Host (a loopback name), as the request arrives.
    @Test(arguments: [
        ("127.0.0.1", ["Host: 127.0.0.1:1337"], true), ("127.3.2.1", ["Host: localhost"], true),
        ("::1", ["Host: [::1]:1337"], true), ("::ffff:127.0.0.1", ["Host: LOCALHOST:80"], true),
        ("127.0.0.1", ["Host: 127.0.0.1"], true),
        ("192.0.2.7", ["Host: 127.0.0.1:1337"], false), ("2001:db8::1", ["Host: [::1]"], false), ("", ["Host: localhost"], false),
        ("127.0.0.1", ["Host: localhost", "X-Forwarded-For: "], false), ("127.0.0.1", ["Host: localhost", "FORWARDED: for=a"], false),
        ("127.0.0.1", ["Host: [::1]:x"], false), ("127.0.0.1", ["Host: localhost:123456"], false), ("127.0.0.1", ["Host: [::2]"], false),
        ("127.0.0.1", ["Host: localhost", "Host: evil.example"], false), ("127.0.0.1", [], false),
    ])
    func admitsOnlyThisMachinesRequests(peer: String, fields: [String], admitted: Bool) {
        let headers = HTTPHeaders(fields.map { field in
            let parts = field.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), String(parts[1].drop { $0 == " " }))
        })
        let request = HTTPRequest(method: "GET", path: "/_dev/mailbox", headers: headers, clientAddress: peer)
        #expect(DevMailbox.admits(request) == admitted, "\(peer) \(fields)")
    }

    /// `GATEHOUSE_MAIL_PER_ADDRESS_HOUR` sets how many messages of a kind an address gets per hour:
    /// with 5, five reset requests each add a message and the sixth adds none (and still answers ok).
    @Test func theHourlyShareOfAnAddressIsASetting() throws {
        let live = try LiveServer { settings in settings.mailPerAddressHour = 5 }
        try Self.run(live, Self.signUp, ["u": "ann", "e": "ann@example.com"])
        let connection = try Connection(live.server.settings.databaseURL!)
        defer { connection.close() }
        func resets() throws -> Int64 {
            try connection.queryFirst("SELECT count(*) FROM mail_outbox WHERE kind = 'reset_password'")?.decode(Int64.self, at: 0) ?? -1
        }
        for sent in 1...6 {
            try Self.run(live, Self.reset, ["e": "ann@example.com"])
            #expect(try resets() == Int64(min(sent, 5)))
        }
    }
}
