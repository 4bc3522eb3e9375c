import OneTimeCodes
import Foundation
import ServerTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Passkeys and two-step verification (TOTP) in the sample app, in headless Chromium: a virtual
/// WebAuthn authenticator (DevTools `WebAuthn` domain) makes and uses a passkey; TOTP codes are
/// computed from the secret the page shows, and the page's QR code is read back from a
/// screenshot with zbarimg. Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct SampleAppSecondFactorTests {
    static let ready = SampleAppAccountTests.ready

    @Test func passkeyAddedOnTheAccountScreenLogsIn() async throws {
        // WebAuthn needs a domain name: the page is opened at http://localhost:PORT.
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-passkey")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await SampleAppAccountTests.register(browser, at: server.localhostOrigin, "ivy", email: "ivy@example.com", password: "larch-ridge-11")

        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        #expect(try await browser.evaluate("document.querySelectorAll('#passkey-list li').length") as? Int == 0)
        try await browser.type("Test laptop", into: "#passkey-name")
        try await browser.click("#passkey-add")
        try await browser.waitFor("document.querySelectorAll('#passkey-list li').length === 1")
        #expect(try await browser.text("#passkey-list li strong") == "Test laptop")
        #expect(try await browser.text("#account-notice-text") == "The passkey Test laptop has been added. You can log in with it now.")
        #expect(try await browser.text("#passkey-list li .hint")?.hasSuffix("not used yet") == true)
        try await browser.screenshot("1-added")
        try await browser.click("#account .to-home")
        try await logInWithThePasskey(browser, "ivy")
        #expect(try await browser.text("#home-username") == "ivy")
        #expect(try await sessionFactors(browser, backdoor) == ["passkey"])
        try await browser.screenshot("2-logged-in")

        // The authenticator already holds a passkey for this account (excludeCredentials). Asked
        // from the passkey's session: the sign-up's session, password only, may not add a second.
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.click("#passkey-add")
        try await browser.waitForVisible("#passkey-error")
        #expect(try await browser.text("#passkey-error") == "This device already has a passkey for this account.")
        #expect(try await browser.evaluate("document.querySelectorAll('#passkey-list li').length") as? Int == 1)

        // Removed on the account screen, the passkey no longer logs in.
        try await browser.waitFor("document.querySelector('#passkey-list li .hint')?.textContent.includes('last used')")
        try await browser.click("#passkey-list li .remove")
        try await browser.waitFor("document.querySelectorAll('#passkey-list li').length === 0")
        #expect(try await browser.text("#account-notice-text") == "The passkey Test laptop has been removed.")
        try await browser.click("#account .to-home")
        try await browser.click("#logout")
        try await browser.click("#passkey-login")
        try await browser.waitForVisible("#start-error")
        #expect(try await browser.text("#start-error") == "That passkey was not accepted. It may have been removed from your account.")
        try await browser.screenshot("3-removed-refused")
        #expect(try await browser.cspViolations() == [])
    }

    /// An authenticator with no passkey for the site: the browser refuses, and the page says so.
    @Test func noPasskeyOnTheDeviceIsSaidInWords() async throws {
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let browser = try await Chromium(name: "app-passkey-none")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await browser.open(server.localhostOrigin + "/", until: Self.ready)
        try await browser.click("#passkey-login")
        try await browser.waitForVisible("#start-error")
        #expect(try await browser.text("#start-error") == "No passkey was used: it was cancelled, or this device has none for this site.")
        try await browser.screenshot("1-none")
    }

    /// A browser without `PublicKeyCredential.parseCreationOptionsFromJSON`,
    /// `parseRequestOptionsFromJSON` and `toJSON()`: the page converts the base64url fields itself.
    @Test func passkeysWithoutTheBrowsersJSONConverters() async throws {
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let browser = try await Chromium(name: "app-passkey-converted")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await SampleAppAccountTests.register(browser, at: server.localhostOrigin, "jay", email: "jay@example.com", password: "larch-ridge-11")
        _ = try await browser.evaluate("""
            (() => { PublicKeyCredential.parseCreationOptionsFromJSON = undefined;
              PublicKeyCredential.parseRequestOptionsFromJSON = undefined; PublicKeyCredential.prototype.toJSON = undefined; })()
            """)
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.click("#passkey-add")
        try await browser.waitFor("document.querySelectorAll('#passkey-list li').length === 1")
        // Unnamed: the server names it.
        #expect(try await browser.text("#passkey-list li strong")?.isEmpty == false)
        try await browser.click("#account .to-home")
        try await logInWithThePasskey(browser, "jay")
        #expect(try await browser.evaluate(
            "[PublicKeyCredential.parseCreationOptionsFromJSON, PublicKeyCredential.parseRequestOptionsFromJSON, PublicKeyCredential.prototype.toJSON].every(f => f === undefined)"
        ) as? Bool == true)
        #expect(try await browser.cspViolations() == [])
    }

    /// The page's QR encoder in every version it makes (1 to 10), UTF-8 included, read back by
    /// zbarimg; longer texts are refused.
    @Test func qrCodesOfEveryVersionReadBack() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let browser = try await Chromium(name: "app-qr")
        defer { browser.close() }
        try await browser.open(server.origin + "/", until: Self.ready)
        let alphabet = Array("abcXYZ0189:/?&=%-_. é한")
        for (index, length) in [1, 17, 32, 53, 78, 106, 122, 152, 180, 206].enumerated() {
            var text = ""
            while text.utf8.count < length { text.append(alphabet[(text.count * 7 + index) % alphabet.count]) }
            let version = try await browser.evaluate("""
                (() => { const modules = qrCode(\(Self.quoted(text))), scale = 4, quiet = 4, side = (modules.length + 2 * quiet) * scale;
                  document.getElementById('qr-test')?.remove();
                  const canvas = document.createElement('canvas'); canvas.id = 'qr-test'; canvas.width = side; canvas.height = side;
                  const context = canvas.getContext('2d'); context.fillStyle = '#fff'; context.fillRect(0, 0, side, side); context.fillStyle = '#000';
                  modules.forEach((row, y) => row.forEach((dark, x) => { if (dark) context.fillRect((x + quiet) * scale, (y + quiet) * scale, scale, scale); }));
                  document.body.prepend(canvas); return (modules.length - 17) / 4; })()
                """) as? Int
            #expect(version == index + 1, "\(text.utf8.count) bytes")
            let image = try await browser.screenshot("v\(index + 1)", of: "#qr-test")
            #expect(try Self.decodeQR(image) == text, "version \(index + 1)")
        }
        #expect(try await browser.evaluate("(() => { try { qrCode('x'.repeat(214)); return 'made'; } catch (e) { return e.name; } })()") as? String == "RangeError")
    }

    /// A link too long for a QR code (a long GATEHOUSE_APP_NAME): the key is shown to type in.
    @Test func aLinkTooLongForAQRCodeShowsTheKeyOnly() async throws {
        let server = try InProcessServer { $0.appName = String(repeating: "A very long app name ", count: 6) }
        defer { server.stop() }
        let browser = try await Chromium(name: "app-totp-long")
        defer { browser.close() }
        try await SampleAppAccountTests.register(browser, at: server.origin, "kim", email: "kim@example.com", password: "larch-ridge-11")
        try await browser.click("#go-account")
        try await browser.click("#totp-start")
        try await browser.waitForVisible("#totp-qr-too-long")
        #expect(try await browser.isVisible("#totp-qr") == false)
        #expect(try await browser.text("#totp-secret")?.count == 39)
        #expect(try await browser.text("#totp-uri")?.hasPrefix("otpauth://totp/A%20very%20long%20app%20name") == true)
        try await browser.screenshot("1-key-only")
    }

    @Test func totpEnrolmentQRCodeAndLogInWithACodeOrARecoveryCode() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-totp")
        defer { browser.close() }
        try await browser.allowClipboard(origin: server.origin)
        try await SampleAppAccountTests.register(browser, at: server.origin, "hal", email: "hal@example.com", password: "larch-ridge-11")
        try await browser.click("#go-account")
        try await browser.waitFor("document.getElementById('totp-status').textContent === 'Off: add a code from an authenticator app to your password.'")

        // The secret as text and as a QR code, which must read back as the same otpauth:// link.
        try await browser.click("#totp-start")
        let secret = try #require(try await browser.text("#totp-secret")).replacingOccurrences(of: " ", with: "")
        #expect(secret.wholeMatch(of: /[A-Z2-7]{32}/) != nil)
        let uri = try await browser.text("#totp-uri")
        #expect(uri == "otpauth://totp/Gatehouse:hal?secret=\(secret)&issuer=Gatehouse")
        let qr = try await browser.screenshot("1-qr", of: "#totp-qr")
        #expect(try Self.decodeQR(qr) == uri)
        let totp = TOTP(secret: try #require(Base32.decode(secret)))

        // A wrong code, then the right one: the recovery codes, shown once, copied.
        try await browser.type(Self.wrongCode(totp), into: "#totp-code")
        try await browser.click("#totp-submit")
        try await browser.waitFor("document.getElementById('totp-error').textContent.startsWith('That code is not right')")
        try await browser.type(totp.code(at: Date()), into: "#totp-code")
        try await browser.click("#totp-submit")
        try await browser.waitForVisible("#totp-recovery")
        let first = try await Self.recoveryCodes(browser)
        #expect(first.count == 10)
        #expect(first.allSatisfy { $0.wholeMatch(of: /[a-z0-9]{5}-[a-z0-9]{5}/) != nil })
        #expect(try await browser.text("#totp-status") == "On: logging in asks for a code from your authenticator app.")
        #expect(try await browser.text("#totp-recovery")?.contains(
            "Type a recovery code in capitals or small letters, with or without the dash.") == true)
        // No other device is signed in: nothing to offer to sign out (the button is enabled again
        // once the page has looked).
        try await browser.waitFor("!document.getElementById('totp-submit').disabled")
        #expect(try await browser.text("#account-notice-text") == "Two-step verification is on.")
        #expect(try await browser.isVisible("#other-devices") == false)
        try await browser.screenshot("2-recovery-codes")
        // At phone width the codes stand in one column, one code a line.
        try await browser.setViewport(width: 390, height: 844, mobile: true)
        let boxes = try #require(try await browser.evaluate(
            "[...document.querySelectorAll('#recovery-codes li')].map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.bottom]; })"
        ) as? [[Double]])
        #expect(boxes.count == 10 && Set(boxes.map { $0[0] }).count == 1, "\(boxes)")
        #expect(zip(boxes, boxes.dropFirst()).allSatisfy { $0[2] <= $1[1] }, "\(boxes)")
        try await browser.screenshot("2-recovery-codes-phone", of: "#totp-recovery")
        try await browser.setViewport(width: 1280, height: 860, mobile: false)
        try await browser.click("#recovery-copy")
        try await browser.waitForVisible("#recovery-copied")
        #expect(try await browser.evaluate("navigator.clipboard.readText()") as? String == first.joined(separator: "\n"))

        // New recovery codes take the code typed beside their button; turning off takes none.
        #expect(try await browser.evaluate(
            "['totp-regenerate-code', 'totp-regenerate'].every(id => document.getElementById('totp-regenerate-form').contains(document.getElementById(id)))"
        ) as? Bool == true)
        #expect(try await browser.evaluate("document.querySelector('#totp-disable-form input:not([type=checkbox])') === null") as? Bool == true)

        // New recovery codes with a code (each code works once: the test forgets the used step).
        try backdoor.execute("UPDATE user_totp SET last_step = 0")
        try await browser.type(totp.code(at: Date()), into: "#totp-regenerate-code")
        try await browser.click("#totp-regenerate")
        try await browser.waitFor("document.getElementById('account-notice-text').textContent.startsWith('You have new recovery codes')")
        let second = try await Self.recoveryCodes(browser)
        #expect(second.count == 10 && Set(second).isDisjoint(with: first))
        try await browser.click("#recovery-done")
        #expect(try await browser.isVisible("#totp-recovery") == false)

        // Log-in: the password, then the code prompt; a wrong code and a voided recovery code are
        // refused, each in its own words.
        try await browser.click("#account .to-home")
        try await browser.click("#logout")
        try await logInWithPassword(browser, "hal", "larch-ridge-11")
        try await browser.waitForVisible("#second-factor")
        #expect(try await browser.text("#second-factor")?.contains(
            "Type a recovery code in capitals or small letters, with or without the dash.") == true)
        try await browser.screenshot("3-code-prompt")
        for (refused, words) in [
            (Self.wrongCode(totp), "That code is not right, or it has been used already. Try the next code from your app."),
            (first[0], "That recovery code is not right or was used already."),
        ] {
            try await browser.type(refused, into: "#second-factor-code")
            try await browser.click("#second-factor-submit")
            try await browser.waitFor("document.getElementById('second-factor-error').textContent === \(Self.quoted(words))")
            _ = try await browser.evaluate("document.getElementById('second-factor-error').hidden = true")
        }
        try backdoor.execute("UPDATE user_totp SET last_step = 0")
        try await browser.type(totp.code(at: Date()), into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitForVisible("#home")
        #expect(try await sessionFactors(browser, backdoor) == ["password", "totp"])

        // A recovery code works once, typed in capitals without the dash too.
        try await browser.click("#logout")
        try await logInWithPassword(browser, "hal", "larch-ridge-11")
        try await browser.type(second[3].uppercased().replacingOccurrences(of: "-", with: ""), into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitForVisible("#home")
        try await browser.click("#logout")
        try await logInWithPassword(browser, "hal", "larch-ridge-11")
        try await browser.type(second[3], into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitFor("document.getElementById('second-factor-error').textContent === 'That recovery code is not right or was used already.'")
        try await browser.type(second[4], into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitForVisible("#home")

        // Turned off (this session was made with a recovery code) once the box is ticked: the
        // password alone logs in again.
        try await browser.click("#go-account")
        try await browser.click("#totp-disable")
        try await browser.waitForVisible("#totp-disable-error")
        #expect(try await browser.text("#totp-disable-error") == "Tick the box to confirm that two-step verification should be turned off.")
        #expect(try await browser.text("#totp-status") == "On: logging in asks for a code from your authenticator app.")
        try await browser.screenshot("4-off-unconfirmed")
        try await browser.click("#totp-disable-confirm")
        try await browser.click("#totp-disable")
        try await browser.waitFor("document.getElementById('totp-status').textContent.startsWith('Off')")
        #expect(try await browser.text("#account-notice-text") == "Two-step verification is off.")
        #expect(try await browser.isVisible("#totp-start"))
        try await browser.screenshot("5-off")
        #expect(try backdoor.logIn("hal", password: "larch-ridge-11").code == nil)
        #expect(try await browser.cspViolations() == [])
    }

    /// A guest (a provider log-in) with two-step verification gets the code prompt too.
    @Test func aGuestWithTOTPIsAskedForTheCode() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-totp-guest")
        defer { browser.close() }
        try await browser.open(server.origin + "/", until: Self.ready)
        try await browser.click("#go-guest")
        try await browser.waitForVisible("#home")
        try await browser.click("#go-account")
        try await browser.click("#totp-start")
        let secret = try #require(try await browser.text("#totp-secret")).replacingOccurrences(of: " ", with: "")
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        try await browser.type(totp.code(at: Date()), into: "#totp-code")
        try await browser.click("#totp-submit")
        try await browser.waitForVisible("#totp-recovery")
        try await browser.click("#account .to-home")
        try await browser.click("#logout")

        try await browser.click("#go-guest")
        try await browser.waitForVisible("#second-factor")
        try await browser.type(Self.wrongCode(totp), into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitFor("document.getElementById('second-factor-error').textContent.startsWith('That code is not right')")
        try backdoor.execute("UPDATE user_totp SET last_step = 0")
        try await browser.type(totp.code(at: Date()), into: "#second-factor-code")
        try await browser.click("#second-factor-submit")
        try await browser.waitForVisible("#home")
        #expect(try await sessionFactors(browser, backdoor).contains("totp"))
        try await browser.screenshot("1-guest-with-code")
    }

    /// A log-in older than GATEHOUSE_RECENT_AUTH may not add a passkey or set up TOTP (206): the
    /// page says to log in again.
    @Test func anOldLogInIsToldToLogInAgain() async throws {
        // Without the session cache the aged creation time is read at once.
        let server = try InProcessServer.onLocalhost { $0.sessionCache = false }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-second-factor-old")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await SampleAppAccountTests.register(browser, at: server.localhostOrigin, "lea", email: "lea@example.com", password: "larch-ridge-11")
        #expect(try backdoor.execute("UPDATE sessions SET created_at = now() - interval '1 hour'") == 1)
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.click("#passkey-add")
        try await browser.waitForVisible("#passkey-error")
        #expect(try await browser.text("#passkey-error") == "For your security, log out and log in again, then try once more.")
        try await browser.click("#totp-start")
        let secret = try #require(try await browser.text("#totp-secret")).replacingOccurrences(of: " ", with: "")
        try await browser.type(TOTP(secret: try #require(Base32.decode(secret))).code(at: Date()), into: "#totp-code")
        try await browser.click("#totp-submit")
        try await browser.waitForVisible("#totp-error")
        #expect(try await browser.text("#totp-error") == "For your security, log out and log in again, then try once more.")
        #expect(try await browser.evaluate("document.querySelectorAll('#passkey-list li').length") as? Int == 0)
        try await browser.screenshot("1-refused")
    }

    /// A password-only session cannot turn two-step verification off (206): the page says how.
    @Test func turningOffNeedsASessionMadeWithTheSecondFactor() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-totp-off")
        defer { browser.close() }
        try await SampleAppAccountTests.register(browser, at: server.origin, "ida", email: "ida@example.com", password: "larch-ridge-11")
        // Enrolled by another session: this browser's session was made with the password alone.
        let token = try #require(try backdoor.logIn("ida", password: "larch-ridge-11").token)
        let objectId = try #require(try backdoor.graphQL("{ viewer { user { objectId } } }", token: token)
            .at("data", "viewer", "user", "objectId")?.stringValue)
        let secret = Base32.encode(Array(repeating: 7, count: 20))
        let enrolled = try backdoor.graphQL(
            "mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { authData } } }",
            variables: ["input": ["id": .string(objectId), "fields": ["authData": ["mfa": [
                "secret": .string(secret), "token": .string(TOTP(secret: Array(repeating: 7, count: 20)).code(at: Date())),
            ]]]]], token: token)
        #expect(enrolled.at("data", "updateUser", "user", "authData", "mfa", "status")?.stringValue == "enabled", "\(enrolled)")
        try await browser.reload(until: Self.ready)
        try await browser.click("#go-account")
        try await browser.click("#totp-disable-confirm")
        try await browser.click("#totp-disable")
        try await browser.waitForVisible("#totp-disable-error")
        #expect(try await browser.text("#totp-disable-error")
            == "For your security, log out and log in again with a code from your app, then turn it off.")
        #expect(try await browser.text("#totp-status") == "On: logging in asks for a code from your authenticator app.")
        try await browser.screenshot("1-refused")
    }

    /// On a page where WebAuthn cannot work the passkey buttons are hidden and a note says why:
    /// at an IP address (a relying party id is a domain: here `localhost`) it links to the address
    /// where passkeys work, the public URL; in a browser without WebAuthn it says so.
    @Test func passkeysWhereTheyCannotWorkAreExplainedNotOffered() async throws {
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let browser = try await Chromium(name: "app-passkey-elsewhere")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        let elsewhere = "Passkeys work at \(server.localhostOrigin)/, not at this address."

        try await browser.open(server.origin + "/", until: Self.ready)
        #expect(try await browser.isVisible("#passkey-login") == false)
        #expect(try await browser.text("#start .passkey-note") == elsewhere)
        try await browser.screenshot("1-start-at-ip")
        try await browser.click("#go-login")
        #expect(try await browser.isVisible("#passkey-login-named") == false)
        try await browser.click("#login .back")
        try await browser.click("#go-register")
        try await browser.type("noa", into: "#register-username")
        try await browser.type("larch-ridge-11", into: "#register-password")
        try await browser.click("#register-submit")
        try await browser.click("#go-account")
        try await browser.waitForVisible("#account .passkey-note")
        #expect(try await browser.text("#account .passkey-note") == elsewhere)
        #expect(try await browser.isVisible("#passkey-add") == false)
        try await browser.screenshot("2-account-at-ip", of: "#account .passkey-note")
        try await browser.click("#account .to-home")
        try await browser.click("#logout")

        // The note's link leads to the address where they work, which offers them.
        try await browser.click("#start .passkey-note a")
        try await browser.waitFor("location.href === \(Self.quoted(server.localhostOrigin + "/")) && \(Self.ready)")
        #expect(try await browser.isVisible("#passkey-login"))
        #expect(try await browser.isVisible("#start .passkey-note") == false)
        try await browser.screenshot("3-start-at-localhost")

        // A browser without WebAuthn at that address.
        try await browser.beforeEveryPage("delete window.PublicKeyCredential;")
        try await browser.reload(until: Self.ready)
        #expect(try await browser.evaluate("'PublicKeyCredential' in window") as? Bool == false)
        #expect(try await browser.isVisible("#passkey-login") == false)
        #expect(try await browser.text("#start .passkey-note") == "This browser does not support passkeys.")
        #expect(try await browser.cspViolations() == [])
    }

    /// A session made with the password alone may not add a passkey beside the user's two-step
    /// verification (206 "Second factor required."): the page says to log in with a factor first.
    @Test func addingAFactorNeedsALogInWithTheOneTheUserHas() async throws {
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-second-factor-needed")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await SampleAppAccountTests.register(browser, at: server.localhostOrigin, "max", email: "max@example.com", password: "larch-ridge-11")
        try Self.enrolTOTP(backdoor, "max")
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.click("#passkey-add")
        try await browser.waitForVisible("#passkey-error")
        #expect(try await browser.text("#passkey-error") == "Log in with your passkey or your app's code first to add another.")
        #expect(try await browser.evaluate("document.querySelectorAll('#passkey-list li').length") as? Int == 0)
        try await browser.screenshot("1-refused")
    }

    /// After a passkey is added, the page offers to sign out the devices signed in without it.
    @Test func afterAddingAFactorTheOtherDevicesCanBeSignedOut() async throws {
        let server = try InProcessServer.onLocalhost()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-enrolled-sign-out")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        try await SampleAppAccountTests.register(browser, at: server.localhostOrigin, "pia", email: "pia@example.com", password: "larch-ridge-11")
        let other = try #require(try backdoor.logIn("pia", password: "larch-ridge-11").token)
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.type("Laptop", into: "#passkey-name")
        try await browser.click("#passkey-add")
        try await browser.waitForVisible("#other-devices")
        #expect(try await browser.text("#account-notice-text") == "The passkey Laptop has been added. You can log in with it now.")
        #expect(try await browser.text("#other-devices p") == "Your other devices are still signed in.")
        #expect(try backdoor.viewerCode(token: other) == nil)
        try await browser.screenshot("1-offer")
        try await browser.click("#other-devices-revoke")
        try await browser.waitFor("document.getElementById('account-notice-text').textContent === 'Signed out 1 other device.'")
        #expect(try await browser.isVisible("#other-devices") == false)
        #expect(try backdoor.viewerCode(token: other) == 209)
        try await browser.screenshot("2-signed-out")
        #expect(try await browser.cspViolations() == [])
    }

    /// With GATEHOUSE_MFA=required the server signs out the other devices when a factor is
    /// added, and the page says so instead of offering it.
    @Test func withMFARequiredAddingAFactorSaysTheOtherDevicesWereSignedOut() async throws {
        let server = try InProcessServer { $0.mfa = .required }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-enrolled-required")
        defer { browser.close() }
        try await SampleAppAccountTests.register(browser, at: server.origin, "quin", email: "quin@example.com", password: "larch-ridge-11")
        let other = try #require(try backdoor.logIn("quin", password: "larch-ridge-11").token)
        try await browser.click("#go-account")
        try await browser.click("#totp-start")
        let secret = try #require(try await browser.text("#totp-secret")).replacingOccurrences(of: " ", with: "")
        try await browser.type(TOTP(secret: try #require(Base32.decode(secret))).code(at: Date()), into: "#totp-code")
        try await browser.click("#totp-submit")
        try await browser.waitForVisible("#totp-recovery")
        try await browser.waitFor("!document.getElementById('totp-submit').disabled")
        #expect(try await browser.text("#account-notice-text") == "Two-step verification is on. Your other devices have been signed out.")
        #expect(try await browser.isVisible("#other-devices") == false)
        #expect(try backdoor.viewerCode(token: other) == 209)
        try await browser.screenshot("1-signed-out")
    }

    /// With GATEHOUSE_VERIFY_EMAILS=required a passkey log-in of a user whose address is not
    /// verified is refused (205): the page says to verify the address.
    @Test func aPasskeyLogInWithAnUnverifiedAddressIsToldToCheckTheMail() async throws {
        let server = try InProcessServer.onLocalhost { $0.verifyEmails = .required }
        defer { server.stop() }
        let browser = try await Chromium(name: "app-passkey-unverified")
        defer { browser.close() }
        try await browser.addVirtualAuthenticator()
        // Without an email the sign-up gets a session; the passkey comes first, the address after.
        try await browser.open(server.localhostOrigin + "/", until: Self.ready)
        try await browser.click("#go-register")
        try await browser.type("rio", into: "#register-username")
        try await browser.type("larch-ridge-11", into: "#register-password")
        try await browser.click("#register-submit")
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('passkey-add').disabled")
        try await browser.click("#passkey-add")
        try await browser.waitFor("document.querySelectorAll('#passkey-list li').length === 1")
        try await browser.type("rio@example.com", into: "#email-new")
        try await browser.click("#email-submit")
        try await browser.waitFor("document.getElementById('account-email').textContent === 'rio@example.com · not verified'")
        try await browser.click("#account .to-home")
        try await browser.click("#logout")
        try await browser.click("#passkey-login")
        try await browser.waitForVisible("#start-error")
        #expect(try await browser.text("#start-error") == "Check your email: verify your address to log in.")
        try await browser.screenshot("1-refused")
    }

    /// Enrols TOTP for `username` from a session of its own (the test's, not the browser's).
    private static func enrolTOTP(_ backdoor: Backdoor, _ username: String) throws {
        let token = try #require(try backdoor.logIn(username, password: "larch-ridge-11").token)
        let objectId = try #require(try backdoor.graphQL("{ viewer { user { objectId } } }", token: token)
            .at("data", "viewer", "user", "objectId")?.stringValue)
        let enrolled = try backdoor.graphQL(
            "mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { authData } } }",
            variables: ["input": ["id": .string(objectId), "fields": ["authData": ["mfa": [
                "secret": .string(Base32.encode(Array(repeating: 7, count: 20))),
                "token": .string(TOTP(secret: Array(repeating: 7, count: 20)).code(at: Date())),
            ]]]]], token: token)
        #expect(enrolled.at("data", "updateUser", "user", "authData", "mfa", "status")?.stringValue == "enabled", "\(enrolled)")
    }

    /// From the home screen: logs out and in with the passkey twice, by the start screen's button
    /// (no username: the authenticator offers its passkey for the site) and by the log-in screen's
    /// (with `username` typed); ends on the home screen.
    private func logInWithThePasskey(_ browser: Chromium, _ username: String) async throws {
        try await browser.click("#logout")
        try await browser.click("#passkey-login")
        try await browser.waitForVisible("#home")
        try await browser.click("#logout")
        try await browser.click("#go-login")
        try await browser.type(username, into: "#login-username")
        try await browser.click("#passkey-login-named")
        try await browser.waitForVisible("#home")
    }

    /// `createdWith.factors` of the browser's session.
    private func sessionFactors(_ browser: Chromium, _ backdoor: Backdoor) async throws -> [String] {
        let token = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)
        let factors = try backdoor.graphQL("{ viewer { session { createdWith } } }", token: token)
            .at("data", "viewer", "session", "createdWith", "factors")
        return factors?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    private func logInWithPassword(_ browser: Chromium, _ username: String, _ password: String) async throws {
        try await browser.click("#go-login")
        try await browser.type(username, into: "#login-username")
        try await browser.type(password, into: "#login-password")
        try await browser.click("#login-submit")
        try await browser.waitForVisible("#second-factor-code")
    }

    /// The recovery codes the page shows.
    private static func recoveryCodes(_ browser: Chromium) async throws -> [String] {
        try await browser.evaluate("[...document.querySelectorAll('#recovery-codes li')].map(e => e.textContent)") as? [String] ?? []
    }

    /// A 6-digit code that none of the accepted steps (now, one before, one after) has.
    private static func wrongCode(_ totp: TOTP) -> String {
        let now = Date()
        let accepted = Set([-30.0, 0, 30].map { totp.code(at: now.addingTimeInterval($0)) })
        var candidate = 0
        while accepted.contains(String(format: "%06d", candidate)) { candidate += 1 }
        return String(format: "%06d", candidate)
    }

    private static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    struct ZbarFailure: Error, CustomStringConvertible { let description: String }

    /// What zbarimg (Debian's zbar-tools; `scripts/install-deps.sh --test`) reads from the QR
    /// code in the image at `url`.
    static func decodeQR(_ url: URL) throws -> String {
        let directory = TemporaryDirectory.make(prefix: "qr")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/output", errorsPath = directory + "/errors"
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(output) }
        let errors = open(errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(errors) }
        let pid = try spawnChild(["/usr/bin/zbarimg", "--raw", "-q", url.path], output: output, errors: errors)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let detail = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
            throw ZbarFailure(description: "zbarimg read no QR code from \(url.path) (status \(status)): \(detail)")
        }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
