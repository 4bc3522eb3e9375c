import ServerTestSupport
import TestSupport
import Testing

/// A guest ("Continue as guest") in the sample app, in headless Chromium: greeted as a guest,
/// it keeps the account by choosing a username and a password, or deletes it, neither asking
/// for a current password it never had. Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct SampleAppGuestTests {
    static let ready = SampleAppAccountTests.ready

    /// Continues as guest; ends on the home screen and returns the guest's user id.
    private func continueAsGuest(_ browser: Chromium) async throws -> String {
        try await browser.click("#go-guest")
        try await browser.waitForVisible("#home")
        return try #require(try await browser.text("#home-objectid"))
    }

    @Test func aGuestChoosesAUsernameAndPassword() async throws {
        // Without the session cache the aged creation time is read at once.
        let server = try InProcessServer { $0.sessionCache = false }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-guest-keeps")
        defer { browser.close() }
        try await browser.open(server.origin + "/", until: Self.ready)
        let guest = try await continueAsGuest(browser)
        #expect(try await browser.text("#welcome") == "Welcome, Guest")
        #expect(try await browser.text("#avatar-initial") == "G")  // of "Guest", not of the random username
        try await browser.screenshot("1-welcome-guest")

        try await browser.click("#go-account")
        try await browser.waitForVisible("#guest-form")
        #expect(try await browser.text("#guest-box h2") == "Choose a username and password")
        #expect(try await browser.isVisible("#password-form") == false)
        try await browser.screenshot("2-account")

        // A guest's log-in that is not recent: continuing as guest again makes a recent one.
        #expect(try backdoor.execute("UPDATE sessions SET created_at = now() - interval '1 hour'") == 1)
        try await browser.type("gwen", into: "#guest-username")
        try await browser.type("larch-ridge-11", into: "#guest-password")
        try await browser.click("#guest-submit")
        try await browser.waitForVisible("#guest-error")
        #expect(try await browser.text("#guest-error") == "For your security, log out and continue as guest again, then try once more.")
        try await browser.click("#account .to-home")
        try await browser.click("#logout")
        #expect(try await continueAsGuest(browser) == guest)

        try await browser.click("#go-account")
        try await browser.type("gwen", into: "#guest-username")
        try await browser.type("larch-ridge-11", into: "#guest-password")
        try await browser.click("#guest-submit")
        try await browser.waitFor(
            "document.getElementById('account-notice-text').textContent === 'Your account is kept: from now on, log in as gwen with your password.'")
        #expect(try await browser.isVisible("#guest-form") == false)
        #expect(try await browser.isVisible("#password-form"))
        #expect(try await browser.isVisible("#delete-current"))
        try await browser.screenshot("3-kept")
        try await browser.click("#account .to-home")
        #expect(try await browser.text("#welcome") == "Welcome, gwen")
        #expect(try await browser.text("#home-objectid") == guest)
        #expect(try backdoor.logIn("gwen", password: "larch-ridge-11").token != nil)

        // The guest's id is no way in any more: continuing as guest makes a new guest.
        try await browser.click("#logout")
        #expect(try await continueAsGuest(browser) != guest)
        #expect(try await browser.text("#welcome") == "Welcome, Guest")
        #expect(try await browser.cspViolations() == [])
    }

    @Test func aGuestDeletesItsAccountWithoutAPassword() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-guest-deletes")
        defer { browser.close() }
        try await browser.open(server.origin + "/", until: Self.ready)
        let guest = try await continueAsGuest(browser)
        let token = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)

        try await browser.click("#go-account")
        try await browser.waitForVisible("#delete-form")
        // The two-step status loads after the screen opens and its button then pushes the form
        // down: wait for it, so that the clicks below land where they aim.
        try await browser.waitForVisible("#totp-start")
        #expect(try await browser.isVisible("#delete-current") == false)
        #expect(try await browser.evaluate("document.getElementById('delete-submit').innerText") as? String == "Delete this guest account")
        try await browser.click("#delete-submit")
        try await browser.waitForVisible("#delete-error")
        #expect(try await browser.text("#delete-error") == "Tick the box to confirm that your account should be deleted.")
        try await browser.screenshot("1-unconfirmed", of: "#delete-form")
        try await browser.click("#delete-confirm")
        try await browser.click("#delete-submit")
        try await browser.waitForVisible("#start")
        #expect(try await browser.text("#notice") == "Your account has been deleted.")
        #expect(try backdoor.viewerCode(token: token) == 209)
        try await browser.screenshot("2-deleted")

        // A new guest next time, not the deleted one again.
        #expect(try await continueAsGuest(browser) != guest)
        #expect(try await browser.cspViolations() == [])
    }
}
