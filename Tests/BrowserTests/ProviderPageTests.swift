import Foundation
import GatehouseServer
import JSON
import ServerTestSupport
import Testing

/// The sample app's third-party log-in against an in-process server: "Continue as guest", and a
/// configured provider's button and token form with tokens from the local OpenID Connect provider.
@Suite(.timeLimit(.minutes(10)))
struct ProviderPageTests {
    let ready = "document.body.dataset.ready === 'true'"

    @Test func continueAsGuestComesBackAsTheSameGuest() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let browser = try await Chromium(name: "guest")
        defer { browser.close() }

        try await browser.open(server.origin + "/", until: ready)
        #expect(try await browser.isVisible("#go-guest"))
        #expect(try await browser.evaluate("document.querySelectorAll('#provider-buttons button').length") as? Int == 0)
        try await browser.click("#go-guest")
        try await browser.waitForVisible("#home")
        let username = try #require(try await browser.text("#home-username"))
        #expect(username.wholeMatch(of: /[a-z0-9]{25}/) != nil, "\(username)")
        try await browser.screenshot("guest-1-home")

        try await browser.click("#logout")
        try await browser.waitForVisible("#start")
        try await browser.click("#go-guest")
        try await browser.waitForVisible("#home")
        #expect(try await browser.text("#home-username") == username)
        #expect(try await browser.cspViolations() == [])
    }

    @Test func aConfiguredProviderTakesAPastedIDToken() async throws {
        let provider = try OIDCTestProvider.start()
        defer { provider.stop() }
        let keys = #""client_ids": ["\#(OIDCTestProvider.clientID)"], "issuer": "\#(provider.issuer)", "jwks_uri": "\#(provider.jwksURI)""#
        let server = try InProcessServer { $0.authProviders = #"{"apple": {\#(keys)}, "acme": {\#(keys)}}"# }
        defer { server.stop() }
        let browser = try await Chromium(name: "provider")
        defer { browser.close() }

        try await browser.open(server.origin + "/", until: ready)
        #expect(try await browser.isVisible("#go-guest") == false)  // anonymous is not configured here
        #expect(try await browser.evaluate("Array.from(document.querySelectorAll('#provider-buttons button'), b => b.textContent).join('|')")
            as? String == "Continue with Acme|Continue with Apple")
        try await browser.screenshot("provider-start")
        try await browser.click("#provider-buttons button[data-provider=acme]")
        try await browser.waitForVisible("#provider-form")
        #expect(try await browser.text("#provider-title") == "Continue with Acme")

        // Not a token: refused on the page. A token for another app: the server's refusal.
        try await browser.type("not-a-token", into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitForVisible("#provider-error")
        #expect(try await browser.text("#provider-error") == "That is not an ID token (a JWT with a sub claim).")
        try await browser.type(try provider.mint(claims: ["aud": "another-app"]), into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitFor("document.getElementById('provider-error').textContent.startsWith('Invalid authData')")
        #expect(try await browser.text("#provider-error") == "Invalid authData for provider acme.")
        try await browser.screenshot("provider-refused")

        // A good token signs in (a new user); Apple's ES256 token (sent as `token`) too.
        try await browser.type(try provider.mint(claims: ["sub": "acme-7"]), into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitForVisible("#home")
        let acmeUser = try #require(try await browser.text("#home-objectid"))
        try await browser.click("#logout")
        try await browser.click("#provider-buttons button[data-provider=apple]")
        try await browser.type(try provider.mint(claims: ["sub": "apple-7"], alg: "ES256"), into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitForVisible("#home")
        #expect(try await browser.text("#home-objectid") != acmeUser)
        #expect(try await browser.cspViolations() == [])
    }
}
