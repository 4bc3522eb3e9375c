import Foundation
@testable import GatehouseServer
import HTTPServer
import JSON
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// `GET /_dev/mailbox`: served on a loopback listener without SMTP, 404 anywhere else; each
/// message in its real state, a link only while it works.
@Suite struct DevMailboxTests {
    static let signUp = """
        mutation S($u: String!, $e: String!) { signUp(input: {fields: {username: $u, password: "password11", email: $e}}) { viewer { sessionToken } } }
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
        let live = try LiveServer { $0.appName = "Acme & Co" }
        let outbox = Outbox(live.server)
        let older = try outbox.insert(kind: "password_changed", recipient: "ann@example.com", username: "ann")
        let newer = try outbox.insert(kind: "password_changed", recipient: "bob@example.com", username: "<b>bob</b>")
        let response = try live.get("/_dev/mailbox")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let csp = try #require(response.header("Content-Security-Policy"))
        #expect(csp.hasPrefix("default-src 'none'; script-src '\(Pages.hash(""))'; style-src 'sha256-"), "only an empty script")
        #expect(response.header("Cache-Control") == "no-store")
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
        let live = try LiveServer()
        let response = try live.get("/_dev/mailbox")
        #expect(response.status == 200 && response.text.contains("No messages yet."))
    }

    /// The newcomer's finding: every message showed "pending" and kept its link after use. Each
    /// message now says what became of it, and a link shows only while it works: a used reset
    /// link, a verified address's link and a reset link replaced by a newer one say so instead.
    @Test func showsEachMessagesStateAndOnlyLinksThatStillWork() throws {
        let live = try LiveServer()
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

    /// With SMTP configured, or on a listener that is not loopback, the path does not exist:
    /// exactly the answer to an unknown path.
    @Test(arguments: ["smtp", "0.0.0.0"])
    func notFoundElsewhere(_ case_: String) throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { settings in
            if case_ == "smtp" { settings.smtpURL = smtp.url } else { settings.host = case_ }
        }
        let connection = try HTTPConnection(port: live.server.port)
        let mailbox = try connection.request("GET", "/_dev/mailbox")
        let unknown = try connection.request("GET", "/_dev/unknown")
        #expect(mailbox.status == 404 && mailbox.text == unknown.text)
        #expect(mailbox.headers.map(\.name).sorted() == unknown.headers.map(\.name).sorted())
    }

    @Test(arguments: [
        ("127.0.0.1", false, true), ("127.3.2.1", false, true), ("::1", false, true),
        ("127.0.0.1", true, false), ("0.0.0.0", false, false), ("::", false, false), ("192.168.1.10", false, false),
        ("localhost", false, false),
    ])
    func servedOnlyOnLoopbackWithoutSMTP(host: String, smtp: Bool, served: Bool) {
        #expect(DevMailbox.isServed(host: host, smtpConfigured: smtp) == served)
    }
}
