import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// The sample app's account screens in headless Chromium: Forgot password? (following the
/// link from the captured mail in the dev mailbox), Account (email, password, deletion) and
/// Signed-in devices. Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct SampleAppAccountTests {
    static let ready = "document.body.dataset.ready === 'true'"

    /// Registers `username` in the browser on the sample app at `origin`; ends on the home screen.
    static func register(_ browser: Chromium, at origin: String, _ username: String, email: String, password: String) async throws {
        try await browser.open(origin + "/", until: Self.ready)
        try await browser.click("#go-register")
        try await browser.type(username, into: "#register-username")
        try await browser.type(email, into: "#register-email")
        try await browser.type(password, into: "#register-password")
        try await browser.click("#register-submit")
        try await browser.waitForVisible("#home")
    }

    @Test func forgotPasswordThroughTheDevMailbox() async throws {
        let server = try InProcessServer { $0.devMailbox = .on }
        defer { server.stop() }
        let browser = try await Chromium(name: "app-forgot")
        defer { browser.close() }
        try await Self.register(browser, at: server.origin, "dora", email: "dora@example.com", password: "larch-ridge-11")
        try await browser.click("#logout")
        try await browser.click("#go-login")
        try await browser.click("#go-forgot")
        try await browser.waitForVisible("#forgot-form")
        try await browser.screenshot("1-forgot")

        // An email nobody has gets the same answer.
        try await browser.type("nobody@example.com", into: "#forgot-email")
        try await browser.click("#forgot-submit")
        try await browser.waitForVisible("#forgot-sent")
        #expect(try await browser.text("#forgot-sent p") == "If an account has this email, a link is on its way.")
        try await browser.type("dora@example.com", into: "#forgot-email")
        try await browser.click("#forgot-submit")
        try await browser.waitForVisible("#forgot-sent .mailbox-hint")
        try await browser.screenshot("2-sent")

        // The mail, as captured in the dev mailbox; its link opens the reset page.
        try await browser.click("#forgot-sent .mailbox-hint a")
        try await browser.waitFor("location.pathname === '/_dev/mailbox' && document.querySelector('a[href*=\"/reset-password?\"]')")
        try await browser.screenshot("3-mailbox")
        try await browser.click("a[href*=\"/reset-password?\"]")
        try await browser.waitFor("location.pathname === '/reset-password' && \(Self.ready)")
        try await browser.type("larch-ridge-22", into: "#reset-password")
        try await browser.type("larch-ridge-22", into: "#reset-repeat")
        try await browser.click("#reset-submit")
        try await browser.waitForVisible("#link-done")
        try await browser.screenshot("4-reset")

        // Back to the app: the new password logs in.
        try await browser.click("#link-done a.button")
        try await browser.waitFor("location.pathname === '/' && \(Self.ready)")
        try await browser.click("#go-login")
        try await browser.type("dora", into: "#login-username")
        try await browser.type("larch-ridge-22", into: "#login-password")
        try await browser.click("#login-submit")
        try await browser.waitForVisible("#home")
        try await browser.screenshot("5-home")
        #expect(try await browser.cspViolations() == [])
    }

    @Test func accountScreenChangesEmailAndPasswordAndDeletes() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-account")
        defer { browser.close() }
        try await Self.register(browser, at: server.origin, "erin", email: "erin@example.com", password: "larch-ridge-11")
        let other = try #require(try backdoor.logIn("erin", password: "larch-ridge-11").token)

        try await browser.click("#go-account")
        try await browser.waitForVisible("#account")
        #expect(try await browser.text("#account-email") == "erin@example.com · not verified")
        #expect(try await browser.isVisible("#send-verification"))
        try await browser.screenshot("1-account")

        // Verification link on request.
        try await browser.click("#send-verification")
        try await browser.waitForVisible("#account-notice")
        #expect(try await browser.text("#account-notice-text") == "A verification link is on its way to erin@example.com.")
        #expect(try backdoor.links("verify_email").count == 1)

        // Email: a bad address, another account's, then a good one (the log-in is recent: no password asked).
        _ = try backdoor.signUp("erin2", password: "larch-ridge-11", email: "erin2@example.com")
        try await browser.type("not-an-email", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitForVisible("#email-error")
        #expect(try await browser.text("#email-error") == "That doesn't look like an email address. Check it and try again.")
        try await browser.type("ERIN2@example.com", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('email-error').textContent === 'Another account already uses that email address.'")
        try await browser.type("erin@example.org", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('account-notice-text').textContent === 'Your email is now erin@example.org.'")
        #expect(try await browser.text("#account-email") == "erin@example.org · not verified")
        #expect(try await browser.isVisible("#email-error") == false)
        try await browser.screenshot("2-email-changed")

        // Password: the current one is required and checked.
        try await browser.type("larch-ridge-33", into: "#password-new")
        try await browser.click("#password-submit")
        try await browser.waitForVisible("#password-error")
        #expect(try await browser.text("#password-error") == "For your security, enter your current password to continue.")
        try await browser.type("wrong-password", into: "#password-current")
        try await browser.click("#password-submit")
        try await browser.waitFor("document.getElementById('password-error').textContent === 'Your current password is wrong.'")
        try await browser.type("larch-ridge-11", into: "#password-current")
        try await browser.type("short", into: "#password-new")
        try await browser.click("#password-submit")
        try await browser.waitFor("document.getElementById('password-error').textContent === 'That password is too weak. Use at least 8 characters.'")
        try await browser.type("larch-ridge-33", into: "#password-new")
        try await browser.click("#password-submit")
        try await browser.waitFor("document.getElementById('account-notice-text').textContent.startsWith('Your password has been changed.')")
        try await browser.screenshot("3-password-changed")
        // The other device is signed out; this one is not.
        #expect(try backdoor.viewerCode(token: other) == 209)
        let mine = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)
        #expect(try backdoor.viewerCode(token: mine) == nil)
        #expect(try backdoor.logIn("erin@example.org", password: "larch-ridge-33").token != nil)

        // Deletion: the password and the confirmation box.
        try await browser.type("larch-ridge-33", into: "#delete-current")
        try await browser.click("#delete-submit")
        try await browser.waitForVisible("#delete-error")
        #expect(try await browser.text("#delete-error") == "Tick the box to confirm that your account should be deleted.")
        try await browser.click("#delete-confirm")
        try await browser.type("larch-ridge-34", into: "#delete-current")
        try await browser.click("#delete-submit")
        try await browser.waitFor("document.getElementById('delete-error').textContent === 'Your current password is wrong.'")
        try await browser.screenshot("4-delete-wrong-password")
        try await browser.type("larch-ridge-33", into: "#delete-current")
        try await browser.click("#delete-submit")
        try await browser.waitForVisible("#start")
        #expect(try await browser.text("#notice") == "Your account has been deleted.")
        #expect(try await browser.evaluate("localStorage.getItem('gatehouse.session')") == nil)
        try await browser.screenshot("5-deleted")
        #expect(try backdoor.logIn("erin", password: "larch-ridge-33").code == 101)
        #expect(try backdoor.viewerCode(token: mine) == 209)
        #expect(try await browser.cspViolations() == [])
    }

    /// An address verified through its link in another tab shows as verified in the app's tab
    /// without a reload: when the tab comes back to the front, and when the Account screen opens.
    @Test func aVerifiedAddressShowsWithoutAReload() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-verified")
        defer { browser.close() }
        try await Self.register(browser, at: server.origin, "vic", email: "vic@example.com", password: "larch-ridge-11")
        _ = try await browser.evaluate("window.__sameDocument = true")
        try await browser.click("#go-account")
        try await browser.waitForVisible("#account")
        #expect(try await browser.text("#account-email") == "vic@example.com · not verified")
        try await browser.click("#send-verification")
        try await browser.waitFor(
            "document.getElementById('account-notice-text').textContent === 'A verification link is on its way to vic@example.com.'")

        // The link opened in another tab confirms the address; back in this tab, it says so.
        try await browser.inAnotherTab(try backdoor.link("verify_email"), until: "!document.getElementById('link-done').hidden")
        try await browser.waitFor("document.getElementById('account-email').textContent === 'vic@example.com · verified'")
        #expect(try await browser.isVisible("#send-verification") == false)
        try await browser.screenshot("1-verified-in-another-tab")

        // A new address, verified without this tab noticing (another device): the Account screen
        // reads it again when it opens.
        try await browser.type("vic@example.org", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('account-email').textContent === 'vic@example.org · not verified'")
        try await browser.click("#send-verification")
        try await browser.waitFor(
            "document.getElementById('account-notice-text').textContent === 'A verification link is on its way to vic@example.org.'")
        let link = try #require(URLComponents(string: try backdoor.link("verify_email")))
        let query = Dictionary(uniqueKeysWithValues: (link.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        let verified = try backdoor.graphQL(
            "mutation ($input: VerifyEmailInput!) { verifyEmail(input: $input) { ok } }",
            variables: ["input": ["username": .string(query["username"] ?? ""), "token": .string(query["token"] ?? "")]])
        #expect(verified.at("data", "verifyEmail", "ok")?.boolValue == true, "\(verified)")
        #expect(try await browser.text("#account-email") == "vic@example.org · not verified")
        try await browser.click("#account .to-home")
        try await browser.click("#go-account")
        try await browser.waitFor("document.getElementById('account-email').textContent === 'vic@example.org · verified'")
        #expect(try await browser.evaluate("window.__sameDocument") as? Bool == true, "the page was not reloaded")
        #expect(try await browser.cspViolations() == [])
    }

    /// A log-in that is not recent: the email change asks for the current password (206).
    @Test func anOldLogInIsAskedForTheCurrentPassword() async throws {
        // Without the session cache the aged creation time is read at once.
        let server = try InProcessServer { $0.sessionCache = false }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-recent-auth")
        defer { browser.close() }
        try await Self.register(browser, at: server.origin, "fay", email: "fay@example.com", password: "larch-ridge-11")
        #expect(try backdoor.execute("UPDATE sessions SET created_at = now() - interval '1 hour'") == 1)

        try await browser.click("#go-account")
        try await browser.type("fay@example.org", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitForVisible("#email-current")
        #expect(try await browser.text("#email-error") == "For your security, enter your current password to continue.")
        try await browser.screenshot("1-asked")
        try await browser.type("larch-ridge-12", into: "#email-current")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('email-error').textContent === 'Your current password is wrong.'")
        try await browser.type("larch-ridge-11", into: "#email-current")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('account-notice-text').textContent === 'Your email is now fay@example.org.'")
        #expect(try await browser.isVisible("#email-current") == false)
        try await browser.screenshot("2-changed")
    }

    @Test func signedInDevicesListsAndSignsOut() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-devices")
        defer { browser.close() }
        try await Self.register(browser, at: server.origin, "gus", email: "gus@example.com", password: "larch-ridge-11")
        let phone = try #require(try backdoor.logIn("gus", password: "larch-ridge-11", userAgent: "TestPhone/1.0").token)
        let tablet = try #require(try backdoor.logIn("gus", password: "larch-ridge-11", userAgent: "TestTablet/2.0").token)

        try await browser.click("#go-devices")
        try await browser.waitFor("document.querySelectorAll('#device-list li').length === 3")
        let names = try await browser.evaluate("[...document.querySelectorAll('#device-list li strong')].map(e => e.textContent)") as? [String]
        // Newest first: the tablet, the phone, then this browser.
        #expect(names == ["TestTablet/2.0", "TestPhone/1.0", "Chrome on Linux"])
        #expect(try await browser.text("#device-list li:nth-child(3) .badge") == "This device")
        #expect(try await browser.evaluate("document.querySelectorAll('#device-list li .revoke').length") as? Int == 2)
        try await browser.screenshot("1-three-devices")

        // Sign out the phone.
        try await browser.click("#device-list li:nth-child(2) .revoke")
        try await browser.waitFor("document.querySelectorAll('#device-list li').length === 2")
        #expect(try await browser.text("#devices-notice") == "Signed out TestPhone/1.0.")
        #expect(try backdoor.viewerCode(token: phone) == 209)
        #expect(try backdoor.viewerCode(token: tablet) == nil)
        try await browser.screenshot("2-phone-signed-out")

        // Sign out all the others.
        try await browser.click("#revoke-others")
        try await browser.waitFor("document.querySelectorAll('#device-list li').length === 1")
        #expect(try await browser.text("#devices-notice") == "Signed out 1 other device.")
        #expect(try await browser.isVisible("#revoke-others") == false)
        #expect(try backdoor.viewerCode(token: tablet) == 209)
        let mine = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)
        #expect(try backdoor.viewerCode(token: mine) == nil)
        try await browser.screenshot("3-only-this-device")
        #expect(try await browser.cspViolations() == [])
    }
}
