import Foundation
import ServerTestSupport
import Testing

/// The two pages in headless Chromium, clicked and typed through as a person would.
/// Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct BrowserFlowTests {
    @Test func appPageRegistersReloadsLogsOutAndLogsIn() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let browser = try await Chromium(name: "app")
        defer { browser.close() }
        let ready = "document.body.dataset.ready === 'true'"

        try await browser.open(server.origin + "/", until: ready)
        #expect(try await browser.isVisible("#start"))
        #expect(try await browser.text("#start h1") == "Welcome")
        try await browser.screenshot("1-start")

        // Register: first with a password the server refuses, then a good one.
        try await browser.click("#go-register")
        try await browser.waitForVisible("#register-form")
        try await browser.type("alice", into: "#register-username")
        try await browser.type("alice@example.com", into: "#register-email")
        try await browser.type("short", into: "#register-password")
        try await browser.click("#register-submit")
        try await browser.waitForVisible("#register-error")
        #expect(try await browser.text("#register-error") == "That password is too weak. Use at least 8 characters.")
        try await browser.screenshot("2-register-weak-password")
        try await browser.type("larch-ridge-123", into: "#register-password")
        try await browser.click("#register-submit")
        try await browser.waitForVisible("#home")
        #expect(try await browser.text("#welcome") == "Welcome, alice")
        #expect(try await browser.text("#home-username") == "alice")
        let token = try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String
        #expect(token?.hasPrefix("r:") == true)
        try await browser.screenshot("3-home-after-register")

        // Reload: still logged in (session from localStorage, confirmed by the server).
        try await browser.reload(until: ready)
        #expect(try await browser.isVisible("#home"))
        #expect(try await browser.isVisible("#start") == false)
        #expect(try await browser.text("#welcome") == "Welcome, alice")
        #expect(try await browser.isVisible("#home-error") == false)
        try await browser.screenshot("4-home-after-reload")

        // Log out.
        try await browser.click("#logout")
        try await browser.waitForVisible("#start")
        #expect(try await browser.text("#notice") == "You have logged out.")
        #expect(try await browser.evaluate("localStorage.getItem('gatehouse.session')") == nil)
        try await browser.screenshot("5-logged-out")

        // The logged-out token is dead on the server too.
        #expect(try Backdoor(server).viewerCode(token: token ?? "") == 209)

        // Log in with a wrong password: the error in plain words, next to the form.
        try await browser.click("#go-login")
        try await browser.type("alice", into: "#login-username")
        try await browser.type("not-the-password", into: "#login-password")
        try await browser.click("#login-submit")
        try await browser.waitForVisible("#login-error")
        #expect(try await browser.text("#login-error") == "The username or password is wrong.")
        #expect(try await browser.isVisible("#home") == false)
        try await browser.screenshot("6-login-wrong-password")

        // Log in by email with the right password, submitting with Enter.
        try await browser.type("ALICE@example.com", into: "#login-username")
        try await browser.type("larch-ridge-123", into: "#login-password")
        try await browser.pressEnter()
        try await browser.waitForVisible("#home")
        #expect(try await browser.text("#welcome") == "Welcome, alice")
        #expect(try await browser.isVisible("#login-error") == false)
        try await browser.screenshot("7-home-after-login")
        #expect(try await browser.cspViolations() == [])

        // The session ended elsewhere: the next load says so and forgets it.
        let current = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)
        try Backdoor(server).graphQL("mutation { logOut(input: {}) { ok } }", token: current)
        try await browser.reload(until: ready)
        try await browser.waitForVisible("#start")
        #expect(try await browser.text("#notice") == "Your session has ended. Please log in again.")
        #expect(try await browser.evaluate("localStorage.getItem('gatehouse.session')") == nil)
        try await browser.screenshot("8-session-ended")
    }

    @Test func explorerRunsHealthAndBrowsesTheSchema() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let browser = try await Chromium(name: "explorer")
        defer { browser.close() }

        // A browser navigation sends Accept: text/html, so /graphql serves the explorer.
        try await browser.open(server.origin + "/graphql", until: "document.querySelector('#schema .type-link')")
        #expect(try await browser.text("header h1") == "Gatehouse GraphQL")

        // Schema browser: the root types first, then a type's fields.
        let listed = try await browser.evaluate("[...document.querySelectorAll('#schema li .type-link')].map(e => e.textContent)") as? [String]
        #expect(listed?.prefix(2) == ["Query", "Mutation"])
        #expect(listed?.contains("User") == true)
        try await browser.click("#schema li:nth-child(2) .type-link")
        try await browser.waitFor("document.querySelector('#schema h3')?.textContent === 'Mutation'")
        let fields = try await browser.evaluate("[...document.querySelectorAll('#schema li.field')].map(e => e.firstChild.textContent)") as? [String]
        #expect(fields?.prefix(3) == ["signUp", "logIn", "logOut"])
        try await browser.screenshot("1-schema-mutation")

        // Run `{ health }`.
        try await browser.type("{ health }", into: "#query")
        try await browser.click("#run")
        try await browser.waitFor("document.querySelector('#result').textContent.includes('health')")
        let shown = try await browser.text("#result") ?? ""
        let result = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        #expect((result?["data"] as? [String: Any])?["health"] as? Bool == true)
        #expect(try await browser.text("#status")?.hasPrefix("HTTP 200") == true)
        try await browser.screenshot("2-health-result")

        // Variables can hold passwords: the explorer never stores them (the query it may), and
        // removes what an older version of the page stored.
        try await browser.type(#"{"password": "s3cret-variable"}"#, into: "#variables")
        _ = try await browser.evaluate("document.querySelector('#result').textContent = ''")
        try await browser.click("#run")
        try await browser.waitFor("document.querySelector('#result').textContent.includes('health')")
        #expect(try await browser.evaluate("JSON.stringify(localStorage).includes('s3cret-variable')") as? Bool == false)
        #expect(try await browser.evaluate("localStorage.getItem('gatehouse.explorer.query')") as? String == "{ health }")
        _ = try await browser.evaluate(#"localStorage.setItem('gatehouse.explorer.variables', '{"password": "stored-before"}')"#)
        try await browser.reload(until: "document.querySelector('#schema .type-link')")
        #expect(try await browser.evaluate("localStorage.getItem('gatehouse.explorer.variables')") == nil)
        #expect(try await browser.evaluate("document.querySelector('#variables').value") as? String == "{}")

        // An error response is shown too (validation error, HTTP status from the server).
        try await browser.type("{ nope }", into: "#query")
        try await browser.click("#run")
        try await browser.waitFor("document.querySelector('#result').textContent.includes('nope')")
        #expect(try await browser.text("#result")?.contains("Cannot query field \\\"nope\\\" on type \\\"Query\\\".") == true)
        #expect(try await browser.text("#status")?.contains("errors") == true)

        #expect(try await browser.cspViolations() == [])
    }
}
