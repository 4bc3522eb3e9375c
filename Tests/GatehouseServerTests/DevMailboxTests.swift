import Foundation
@testable import GatehouseServer
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// `GET /_dev/mailbox`: served on a loopback listener without SMTP, 404 anywhere else.
@Suite struct DevMailboxTests {
    @Test func showsTheOutboxNewestFirstEscaped() throws {
        let live = try LiveServer { $0.appName = "Acme & Co" }
        let outbox = Outbox(live.server)
        let older = try outbox.insert(recipient: "ann@example.com", username: "ann")
        let newer = try outbox.insert(recipient: "bob@example.com", username: "<b>bob</b>")
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
        let link = "http://127.0.0.1/reset-password?token=secret1&amp;username=ann"
        #expect(page.contains(#"<a href="\#(link)">\#(link)</a>"#), "the link is clickable, escaped")
        #expect(page.contains("reset_password") && page.contains("pending"))
        #expect(older.count == 1 && newer.count == 1)
        // The subject and body come from the composer, in the row's language.
        #expect(page.contains("Acme &amp; Co"))
    }

    @Test func emptyMailbox() throws {
        let live = try LiveServer()
        let response = try live.get("/_dev/mailbox")
        #expect(response.status == 200 && response.text.contains("No messages yet."))
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
