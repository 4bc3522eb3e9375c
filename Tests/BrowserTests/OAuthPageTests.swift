import Foundation
import JSON
import ServerTestSupport
import Sodium
import Signatures
import TestSupport
import Testing

/// The OAuth authorization page in headless Chromium: signing in with a password on the sample
/// app's own screens, the consent screen, and the redirect to the app (on another origin, which
/// the page's form-action allows) with a code that the token endpoint takes; then a denial.
/// Screenshots go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct OAuthPageTests {
    static let ready = "document.body.dataset.ready === 'true'"

    static func query(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    @Test func signInConsentAndDeny() async throws {
        let server = try InProcessServer.onLocalhost { $0.oauthDynamicRegistration = true }
        defer { server.stop() }
        let backdoor = Backdoor(server)
        _ = try backdoor.signUp("gwen", password: "larch-ridge-11", email: "gwen@example.com")
        // The app's callback is on another origin than the page (127.0.0.1, not localhost).
        let callback = "http://127.0.0.1:\(server.server.port)/callback"
        let registration = try HTTPConnection(port: server.server.port).request(
            "POST", "/oauth/register", headers: [("Content-Type", "application/json")],
            body: Array(#"{"redirect_uris": ["\#(callback)"], "client_name": "Notes", "token_endpoint_auth_method": "none"}"#.utf8))
        #expect(registration.status == 201, "\(registration.text)")
        let clientId = try #require(try JSONParser().parse(registration.body)["client_id"]?.stringValue)
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let authorize = { (extra: [(String, String)]) in
            server.localhostOrigin + "/oauth/authorize?" + Self.query([
                ("response_type", "code"), ("client_id", clientId), ("redirect_uri", callback), ("scope", "openid email"),
                ("state", "s-42"), ("code_challenge", Base64URL.encode(SHA256.digest(verifier))), ("code_challenge_method", "S256"),
                ("nonce", "n-42"),
            ] + extra)
        }

        let browser = try await Chromium(name: "oauth-page")
        defer { browser.close() }
        try await browser.open(authorize([]), until: Self.ready)
        #expect(try await browser.text("#authorize-banner") == "Notes asks you to sign in with your Gatehouse account.")
        try await browser.screenshot("1-start")
        try await browser.click("#go-login")
        try await browser.type("gwen", into: "#login-username")
        try await browser.type("larch-ridge-11", into: "#login-password")
        try await browser.click("#login-submit")
        try await browser.waitForVisible("#consent")
        #expect(try await browser.text("#consent-title") == "Notes wants to access your account")
        #expect(try await browser.text("#consent-scopes") == "Know who you are on GatehouseSee your email address")
        #expect(try await browser.text("#consent-unverified")
            == "Notes registered itself with Gatehouse, which has not checked its name. If you allow it, you go on to 127.0.0.1.")
        try await browser.screenshot("2-consent")
        try await browser.click("#consent-approve")
        try await browser.waitFor("location.host === '127.0.0.1:\(server.server.port)' && location.pathname === '/callback'")
        let approved = try #require(try await browser.evaluate("location.search") as? String)
        let answer = Dictionary(
            (URLComponents(string: "http://x/" + approved)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
        #expect(answer["state"] == "s-42" && answer["iss"] == server.server.publicURL, "\(answer)")
        let code = try #require(answer["code"], "\(answer)")
        let exchanged = try HTTPConnection(port: server.server.port).request(
            "POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(Self.query([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callback), ("code_verifier", verifier),
                ("client_id", clientId),
            ]).utf8))
        #expect(exchanged.status == 200, "\(exchanged.text)")
        #expect(try JSONParser().parse(exchanged.body)["id_token"]?.stringValue != nil)

        // Signed in already: prompt=consent asks again, and Deny goes back with access_denied.
        try await browser.open(authorize([("prompt", "consent")]), until: Self.ready)
        try await browser.waitForVisible("#consent")
        try await browser.click("#consent-deny")
        try await browser.waitFor("location.pathname === '/callback'")
        let denied = try #require(try await browser.evaluate("location.search") as? String)
        #expect(denied.contains("error=access_denied") && denied.contains("state=s-42") && !denied.contains("code="), "\(denied)")

        // The sample app's Account screen lists the app, and removes it.
        try await browser.open(server.localhostOrigin + "/", until: Self.ready)
        try await browser.click("#go-account")
        try await browser.waitFor("!document.getElementById('account').hasAttribute('aria-busy')")
        #expect(try await browser.text("#app-list strong") == "Notes")
        try await browser.screenshot("3-apps")
        try await browser.click("#app-list button.remove")
        try await browser.waitForVisible("#apps-none")
        #expect(try await browser.text("#account-notice-text") == "Notes was removed: it must ask you again before it can sign you in.")
        #expect(try await browser.cspViolations() == [])
    }
}
