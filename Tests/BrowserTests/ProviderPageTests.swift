import Foundation
@testable import GatehouseServer
import HTTPServer
import ServerTestSupport
import Synchronization
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

    /// Serves the sample app of `Pages(providers:)` at `/` and answers every `/graphql` request
    /// with `reply`, keeping the requests' `variables.input`.
    final class StandIn: Sendable {
        struct Handler: HTTPHandler {
            let app: HTTPResponse
            let reply: String
            let inputs: Inputs
            func answer(_ request: HTTPRequest) -> HTTPAnswer {
                guard request.path == "/graphql" else { return .now(app) }
                let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
                let input = (body?["variables"] as? [String: Any])?["input"] ?? [:]
                let text = (try? JSONSerialization.data(withJSONObject: input, options: [.sortedKeys, .withoutEscapingSlashes]))
                inputs.list.withLock { $0.append(text.map { String(decoding: $0, as: UTF8.self) } ?? "") }
                return .now(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(reply.utf8)))
            }
        }
        final class Inputs: Sendable { let list = Mutex<[String]>([]) }

        let server: HTTPServer
        private let log = Inputs()

        init(providers: [String], reply: String) throws {
            server = HTTPServer(
                configuration: .init(workerThreads: 1),
                handler: Handler(app: Pages(providers: providers).app, reply: reply, inputs: log))
            try server.start()
        }
        var origin: String { "http://127.0.0.1:\(server.boundPort ?? 0)" }
        var inputs: [String] { log.list.withLock { $0 } }
    }

    @Test func aConfiguredProviderTakesAPastedIDToken() async throws {
        let standIn = try StandIn(
            providers: ["apple", "acme"],
            reply: #"{"errors": [{"message": "Invalid authData for provider acme.", "extensions": {"code": 101}}], "data": null}"#)
        defer { _ = standIn.server.stop() }
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
