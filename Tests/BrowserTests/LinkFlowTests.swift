import JSON
import ServerTestSupport
import TestSupport
import Testing

/// The pages behind the links in headless Chromium: a link opened as a person opens it from
/// their mail. Links come from the outbox (no SMTP server is configured, so each message stays
/// there with its link); SampleAppAccountTests follows one through the dev mailbox page.
/// Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct LinkFlowTests {
    static func visible(_ id: String) -> String {
        "document.getElementById('\(id)') && !document.getElementById('\(id)').hidden"
    }

    @Test func fetchingAVerifyLinkChangesNothingAndThePageConfirmsByItself() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let (token, link) = try backdoor.signUpAnn(askingFor: "sendVerificationEmail", kind: "verify_email")

        // A mail scanner fetches the link: nothing changes.
        #expect(try HTTPConnection.get(String(link.dropFirst(server.origin.count)), port: server.server.port).status == 200)
        #expect(try backdoor.emailVerified(token: token) == false)

        let browser = try await Chromium(name: "link-verify")
        defer { browser.close() }
        try await browser.open(link, until: Self.visible("link-done"))
        #expect(try await browser.text("#link-done h1") == "Your email address is verified")
        #expect(try await browser.text(".brand") == "GGatehouse")
        try await browser.screenshot("1-verified")
        #expect(try eventually { try backdoor.emailVerified(token: token) == true })  // the cache hears of the change by NOTIFY
        #expect(try await browser.evaluate("localStorage.length + sessionStorage.length") as? Int == 0)
        #expect(try await browser.cspViolations() == [])
    }

    @Test func theVerifyButtonWorksWithoutScripts() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let (token, link) = try backdoor.signUpAnn(askingFor: "sendVerificationEmail", kind: "verify_email")

        let browser = try await Chromium(name: "link-verify-noscript")
        defer { browser.close() }
        try await browser.disableScripts()
        try await browser.open(link, until: "document.getElementById('verify-submit')")
        #expect(try await browser.isVisible("#verify-submit"))
        #expect(try await browser.text("#verify-submit") == "Confirm my email address")
        try await browser.screenshot("1-button")
        #expect(try backdoor.emailVerified(token: token) == false)
        try await browser.click("#verify-submit")
        try await browser.waitFor("location.search === '' && \(Self.visible("link-done"))")
        #expect(try await browser.text("#link-done h1") == "Your email address is verified")
        try await browser.screenshot("2-verified")
        #expect(try eventually { try backdoor.emailVerified(token: token) == true })  // the cache hears of the change by NOTIFY
    }

    @Test func theResetPageChecksThePasswordsInWordsThenResets() async throws {
        let server = try InProcessServer { $0.passwordMaxBytes = 20 }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        _ = try backdoor.signUp("bob", password: "larch-ridge-11", email: "bob@example.com")
        let other = try #require(try backdoor.logIn("bob", password: "larch-ridge-11").token)
        try backdoor.graphQL(#"mutation { resetPassword(input: {email: "BOB@example.com"}) { ok } }"#)
        let link = try backdoor.link("reset_password")
        // A mail scanner fetches the link first: the token still works after.
        #expect(try HTTPConnection.get(String(link.dropFirst(server.origin.count)), port: server.server.port).status == 200)

        let browser = try await Chromium(name: "link-reset")
        defer { browser.close() }
        try await browser.open(link, until: "document.body.dataset.ready === 'true'")
        #expect(try await browser.text("#link-form h1") == "Choose a new password")
        #expect(try await browser.text("#link-form .lead") == "Set a new password for the account bob.")

        let attempts: [(String, String, String)] = [
            ("", "", "Enter a new password."),
            ("larch-ridge-22", "larch-ridge-23", "The two passwords do not match."),
            ("short1", "short1", "That password is too weak. Use at least 8 characters."),
            ("password", "password", "Password is too common. Choose one that is harder to guess."),
            ("password22password22x", "password22password22x", "Password is too long (at most 20 bytes)."),
        ]
        for (index, (password, repeated, message)) in attempts.enumerated() {
            try await browser.type(password, into: "#reset-password")
            try await browser.type(repeated, into: "#reset-repeat")
            try await browser.click("#reset-submit")
            try await browser.waitFor("document.getElementById('reset-error').textContent === \(quoted(message))")
            try await browser.screenshot("\(index + 1)-error")
        }
        try await browser.type("larch-ridge-22", into: "#reset-password")
        try await browser.type("larch-ridge-22", into: "#reset-repeat")
        try await browser.pressEnter()
        try await browser.waitFor(Self.visible("link-done"))
        #expect(try await browser.text("#link-done h1") == "Your password has been changed")
        try await browser.screenshot("6-done")
        #expect(try await browser.evaluate("localStorage.length + sessionStorage.length") as? Int == 0)
        #expect(try await browser.cspViolations() == [])

        #expect(try backdoor.logIn("bob", password: "larch-ridge-11").code == 101)
        #expect(try backdoor.logIn("bob", password: "larch-ridge-22").token != nil)
        #expect(try backdoor.viewerCode(token: other) == 209)

        // The link is used up.
        try await browser.open(link, until: "document.body.dataset.ready === 'true'")
        try await browser.type("larch-ridge-33", into: "#reset-password")
        try await browser.type("larch-ridge-33", into: "#reset-repeat")
        try await browser.click("#reset-submit")
        try await browser.waitFor(Self.visible("link-invalid"))
        #expect(try await browser.text("#invalid-title") == "This link is invalid")
        try await browser.screenshot("7-used")
    }

    @Test func expiredAndInvalidLinksSaySoAndSendANewOne() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        _ = try backdoor.signUp("cat", password: "larch-ridge-11", email: "cat@example.com")
        try backdoor.graphQL(#"mutation { resetPassword(input: {email: "cat@example.com"}) { ok } }"#)
        let link = try backdoor.link("reset_password")
        #expect(try backdoor.execute("UPDATE account_tokens SET expires_at = now() - interval '1 second'") == 1)

        let browser = try await Chromium(name: "link-expired")
        defer { browser.close() }
        try await browser.open(link, until: "document.body.dataset.ready === 'true'")
        try await browser.type("larch-ridge-22", into: "#reset-password")
        try await browser.type("larch-ridge-22", into: "#reset-repeat")
        try await browser.click("#reset-submit")
        try await browser.waitFor(Self.visible("link-invalid"))
        #expect(try await browser.text("#invalid-title") == "This link has expired")
        try await browser.screenshot("1-expired")
        try await browser.type("cat@example.com", into: "#resend-email")
        try await browser.click("#resend-submit")
        try await browser.waitFor(Self.visible("resend-sent"))
        #expect(try await browser.text("#resend-sent")
            == "If an account has this email address, a new link is on its way. Check your inbox.")
        try await browser.screenshot("2-sent")
        #expect(try backdoor.links("reset_password").count == 2)

        // A verify link with a token that is not the user's: the script's answer offers a new link too.
        try await browser.open(server.origin + "/verify-email?token=abc&username=cat", until: Self.visible("link-invalid"))
        #expect(try await browser.text("#invalid-title") == "This link is invalid or has expired")
        try await browser.type("cat@example.com", into: "#resend-email")
        try await browser.click("#resend-submit")
        try await browser.waitFor(Self.visible("resend-sent"))
        try await browser.screenshot("3-verify-sent")
        #expect(try backdoor.links("verify_email").count == 1)
        #expect(try await browser.cspViolations() == [])
    }

    struct Language: Sendable, CustomTestStringConvertible {
        let acceptLanguage: String
        let lang: String
        let title: String
        let mismatch: String
        let invalid: String
        var testDescription: String { acceptLanguage }
    }

    static let languages: [Language] = [
        Language(acceptLanguage: "en-GB,en;q=0.8", lang: "en", title: "Choose a new password",
                 mismatch: "The two passwords do not match.", invalid: "This link is invalid or has expired"),
        Language(acceptLanguage: "es-ES,es;q=0.9", lang: "es", title: "Elige una contraseña nueva",
                 mismatch: "Las dos contraseñas no coinciden.", invalid: "Este enlace no es válido o ha caducado"),
        Language(acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.5", lang: "fr", title: "Choisissez un nouveau mot de passe",
                 mismatch: "Les deux mots de passe ne sont pas identiques.", invalid: "Ce lien n’est pas valide ou a expiré"),
        Language(acceptLanguage: "ko-KR,ko;q=0.9", lang: "ko", title: "새 비밀번호 설정",
                 mismatch: "두 비밀번호가 일치하지 않습니다.", invalid: "이 링크는 유효하지 않거나 만료되었습니다"),
    ]

    /// The browser's Accept-Language picks the page's language: the served words and the
    /// script's (from the page's data block) alike.
    @Test(arguments: languages)
    func eachLanguageIsPickedByAcceptLanguage(_ item: Language) async throws {
        let server = try InProcessServer { $0.appName = "Acme" }
        defer { server.stop() }
        let browser = try await Chromium(name: "link-\(item.lang)")
        defer { browser.close() }
        try await browser.setAcceptLanguage(item.acceptLanguage)

        try await browser.open(server.origin + "/reset-password?token=abc&username=ann", until: "document.body.dataset.ready === 'true'")
        #expect(try await browser.evaluate("document.documentElement.lang") as? String == item.lang)
        #expect(try await browser.text("#link-form h1") == item.title)
        #expect(try await browser.evaluate("document.title") as? String == "\(item.title) – Acme")
        try await browser.type("larch-ridge-22", into: "#reset-password")
        try await browser.type("larch-ridge-23", into: "#reset-repeat")
        try await browser.click("#reset-submit")
        try await browser.waitFor("document.getElementById('reset-error').textContent === \(quoted(item.mismatch))")
        try await browser.screenshot("1-mismatch")

        try await browser.open(server.origin + "/verify-email?token=abc&username=ann", until: Self.visible("link-invalid"))
        #expect(try await browser.text("#invalid-title") == item.invalid)
        try await browser.screenshot("2-invalid")
        #expect(try await browser.cspViolations() == [])
    }
}

/// `text` as a JavaScript string literal.
func quoted(_ text: String) -> String {
    JSON.string(text).serializedString()
}
