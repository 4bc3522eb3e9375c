import Foundation
@testable import GatehouseServer
import ServerTestSupport
import Testing

/// The sample app's third-party log-in: "Continue as guest" against an in-process server, and
/// a configured provider's button and token form against a stand-in that answers `/graphql`.
@Suite(.timeLimit(.minutes(2)))
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
        let standIn = try StandInGraphQLServer(page: Pages(providers: ["apple", "acme"]).app) { _ in
            StandInGraphQLServer.error(code: 101, message: "Invalid authData for provider acme.")
        }
        defer { standIn.stop() }
        let browser = try await Chromium(name: "provider")
        defer { browser.close() }

        try await browser.open(standIn.origin + "/", until: ready)
        #expect(try await browser.isVisible("#go-guest") == false)  // anonymous is not configured here
        #expect(try await browser.evaluate("Array.from(document.querySelectorAll('#provider-buttons button'), b => b.textContent).join('|')")
            as? String == "Continue with Apple|Continue with Acme")
        try await browser.screenshot("provider-start")
        try await browser.click("#provider-buttons button[data-provider=acme]")
        try await browser.waitForVisible("#provider-form")
        #expect(try await browser.text("#provider-title") == "Continue with Acme")

        // Not a token: refused on the page, nothing sent.
        try await browser.type("not-a-token", into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitForVisible("#provider-error")
        #expect(try await browser.text("#provider-error") == "That is not an ID token (a JWT with a sub claim).")
        #expect(standIn.inputs.isEmpty)

        // A token: its sub goes as the id beside it; the server's refusal names the provider.
        let token = "eyJhbGciOiJSUzI1NiJ9." + Data(#"{"sub":"acme|7","aud":"gatehouse"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "") + ".c2ln"
        try await browser.type(token, into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitFor("document.getElementById('provider-error').textContent.startsWith('Invalid authData')")
        #expect(try await browser.text("#provider-error") == "Invalid authData for provider acme.")
        #expect(standIn.inputs == [#"{"authData":{"acme":{"id":"acme|7","id_token":"\#(token)"}}}"#])
        try await browser.screenshot("provider-refused")

        // Apple's token goes in `token`.
        try await browser.click("#provider .back")
        try await browser.click("#provider-buttons button[data-provider=apple]")
        try await browser.type(token, into: "#provider-token")
        try await browser.click("#provider-submit")
        try await browser.waitFor("document.getElementById('provider-error').textContent.startsWith('Invalid authData')")
        #expect(standIn.inputs.last == #"{"authData":{"apple":{"id":"acme|7","token":"\#(token)"}}}"#)
        #expect(try await browser.cspViolations() == [])
    }
}
