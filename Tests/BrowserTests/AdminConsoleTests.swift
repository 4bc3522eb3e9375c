import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// The operators' console at `/admin` in headless Chromium, at desktop and phone widths: the
/// master key (refused when wrong, kept in the tab's sessionStorage only), the search, a user's
/// page, ending sessions, disabling and enabling, a verification link sent again, and deletion
/// with a typed confirmation; each action checked against the server. Screenshots go to
/// `.build/screenshots/admin-<width>-…png`.
@Suite(.timeLimit(.minutes(10)))
struct AdminConsoleTests {
    static let masterKey = "console-master-key-0123456789"
    static let ready = "document.body.dataset.ready === 'true'"
    static let idle = "!document.body.hasAttribute('aria-busy')"

    struct Width: Sendable, CustomStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let mobile: Bool
        var description: String { name }
    }

    static let widths = [
        Width(name: "desktop", width: 1280, height: 860, mobile: false),
        Width(name: "phone", width: 390, height: 844, mobile: true),
    ]

    @Test(arguments: widths)
    func everyAction(at size: Width) async throws {
        let server = try InProcessServer { $0.masterKey = Self.masterKey }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let ann = try backdoor.signUp("ann", password: "larch-ridge-11", email: "ann@example.com")
        let annPhone = try #require(try backdoor.logIn("ann", password: "larch-ridge-11", userAgent: "AnnPhone/2.0").token)
        _ = try backdoor.signUp("andy", password: "larch-ridge-11", email: "andy@example.org")
        _ = try backdoor.signUp("bea", password: "larch-ridge-11")

        let browser = try await Chromium(name: "admin-\(size.name)")
        defer { browser.close() }
        try await browser.setViewport(width: size.width, height: size.height, mobile: size.mobile)
        try await browser.open(server.origin + "/admin", until: Self.ready)
        #expect(try await browser.isVisible("#key-form"))
        try await browser.screenshot("1-key")

        // A wrong key is refused; the right one opens the console and stays in this tab only.
        try await browser.type("not-the-key", into: "#key-input")
        try await browser.click("#key-submit")
        try await browser.waitForVisible("#key-error")
        #expect(try await browser.text("#key-error") == "That is not a master key of this server.")
        try await browser.type(Self.masterKey, into: "#key-input")
        try await browser.click("#key-submit")
        try await browser.waitForVisible("#search-form")
        try await browser.waitFor("document.querySelectorAll('#results li').length === 3")
        #expect(try await browser.text("#search-count") == "3 users")
        #expect(try await browser.evaluate("sessionStorage.getItem('gatehouse.admin.key')") as? String == Self.masterKey)
        #expect(try await browser.evaluate("localStorage.length") as? Int == 0)
        #expect(try await browser.evaluate("location.href") as? String == server.origin + "/admin")

        // Search: usernames starting with "an", then the disabled ones.
        try await browser.type("an", into: "#search-text")
        try await browser.click("#search-submit")
        try await browser.waitFor("document.querySelectorAll('#results li').length === 2 && \(Self.idle)")
        #expect(try await browser.evaluate("[...document.querySelectorAll('#results .name')].map(e => e.textContent)") as? [String]
            == ["andy", "ann"])
        try await Self.expectNoSideways(browser)
        try await browser.screenshot("2-search")

        // A user's page: profile, ways in, sessions with their devices.
        try await browser.click("#results li:last-child button")
        try await browser.waitForVisible("#user-name")
        #expect(try await browser.text("#user-name") == "ann")
        #expect(try await browser.text("#user-email") == "ann@example.com · not verified")
        #expect(try await browser.text("#user-providers") == "password only")
        #expect(try await browser.text("#user-mfa") == "off")
        #expect(try await browser.evaluate("document.querySelectorAll('#user-sessions li').length") as? Int == 2)
        #expect(try await browser.text("#user-sessions li:first-child strong") == "AnnPhone/2.0")
        try await Self.expectNoSideways(browser)
        try await browser.screenshot("3-user")

        // End every session.
        try await browser.click("#end-sessions")
        try await browser.waitFor("document.getElementById('user-notice').textContent === 'Ended 2 sessions.'")
        #expect(try backdoor.viewerCode(token: ann) == 209)
        #expect(try backdoor.viewerCode(token: annPhone) == 209)
        #expect(try await browser.text("#user-sessions li") == "No sessions.")

        // Disable with a reason: ann cannot log in; enable: she can.
        try await browser.type("chargeback", into: "#disable-reason")
        try await browser.click("#disable")
        try await browser.waitFor("document.getElementById('user-state').textContent === 'Disabled: chargeback'")
        #expect(try backdoor.logIn("ann", password: "larch-ridge-11").code == 101)
        try await browser.screenshot("4-disabled")
        try await browser.click("#enable")
        try await browser.waitFor("document.getElementById('user-state').textContent === 'Active'")
        #expect(try await browser.text("#user-notice") == "The account is enabled again.")
        #expect(try backdoor.logIn("ann", password: "larch-ridge-11").token != nil)

        // A verification link again.
        let links = try backdoor.links("verify_email").count
        try await browser.click("#resend")
        try await browser.waitFor("document.getElementById('user-notice').textContent === 'A verification link is on its way to ann@example.com.'")
        #expect(try backdoor.links("verify_email").count == links + 1)

        // Delete: only once the username is typed.
        #expect(try await browser.evaluate("document.getElementById('delete').disabled") as? Bool == true)
        try await browser.type("an", into: "#delete-confirm")
        #expect(try await browser.evaluate("document.getElementById('delete').disabled") as? Bool == true)
        try await browser.type("ann", into: "#delete-confirm")
        try await browser.waitFor("!document.getElementById('delete').disabled")
        try await browser.screenshot("5-delete")
        try await browser.click("#delete")
        try await browser.waitForVisible("#search-form")
        try await browser.waitFor("document.getElementById('search-count').textContent.startsWith('Deleted ann.') && \(Self.idle)")
        #expect(try await browser.evaluate("[...document.querySelectorAll('#results .name')].map(e => e.textContent)") as? [String] == ["andy"])
        #expect(try backdoor.logIn("ann", password: "larch-ridge-11").code == 101)

        // The key outlives a reload of the tab, and goes when the operator forgets it.
        try await browser.reload(until: Self.ready)
        try await browser.waitForVisible("#search-form")
        try await browser.click("#forget-key")
        try await browser.waitForVisible("#key-form")
        #expect(try await browser.evaluate("sessionStorage.getItem('gatehouse.admin.key')") as? String == nil)
        #expect(try await browser.cspViolations() == [])
    }

    /// A read-only key browses, and its actions are refused with the server's words.
    @Test func theReadOnlyKeyBrowsesButActsOnNothing() async throws {
        let server = try InProcessServer {
            $0.masterKey = Self.masterKey
            $0.readOnlyMasterKey = "console-read-only-0123456789"
        }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        _ = try backdoor.signUp("ann", password: "larch-ridge-11", email: "ann@example.com")
        let browser = try await Chromium(name: "admin-read-only")
        defer { browser.close() }
        try await browser.open(server.origin + "/admin", until: Self.ready)
        try await browser.type("console-read-only-0123456789", into: "#key-input")
        try await browser.click("#key-submit")
        try await browser.waitFor("document.querySelectorAll('#results li').length === 1")
        try await browser.click("#results li button")
        try await browser.waitForVisible("#user-name")
        try await browser.click("#disable")
        try await browser.waitForVisible("#user-error")
        #expect(try await browser.text("#user-error") == "Permission denied: read-only master key.")
        #expect(try backdoor.logIn("ann", password: "larch-ridge-11").token != nil)
    }

    /// Nothing on the page is wider than the window (no sideways scrolling at phone width), and
    /// every field, button and row stays inside the card.
    static func expectNoSideways(_ browser: Chromium) async throws {
        #expect(try await browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true)
        let outside = try await browser.evaluate("""
            (() => { const card = document.querySelector('main').getBoundingClientRect();
              return [...document.querySelectorAll('main input, main select, main button, main li')]
                .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < card.left || r.right > card.right); })
                .map(e => e.id || e.tagName); })()
            """) as? [String]
        #expect(outside == [], "outside the card: \(outside ?? [])")
    }
}
