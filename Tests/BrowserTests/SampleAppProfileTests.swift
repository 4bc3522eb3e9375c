import JSON
import ServerTestSupport
import TestSupport
import Testing

/// The profile in the sample app, in headless Chromium: the home screen greets by the display
/// name, the Account screen edits it and the photo URL (the server's refusals in its words) and
/// shows the photo. The photo is the server's own icon over loopback http, which the server
/// accepts, so no network is needed. Screenshots of each step go to `.build/screenshots/`.
@Suite(.timeLimit(.minutes(10)))
struct SampleAppProfileTests {
    static let ready = SampleAppAccountTests.ready

    /// The value of the input `id`.
    private func value(_ browser: Chromium, _ id: String) async throws -> String? {
        try await browser.evaluate("document.getElementById('\(id)').value") as? String
    }

    /// Types `name` and `photo` into the profile form (an empty one empties the field) and saves it.
    private func save(_ browser: Chromium, name: String, photo: String) async throws {
        for (text, id) in [(name, "profile-name"), (photo, "profile-photo-url")] {
            if text.isEmpty {
                _ = try await browser.evaluate("document.getElementById('\(id)').value = ''")
            } else {
                try await browser.type(text, into: "#\(id)")
            }
        }
        try await browser.click("#profile-submit")
    }

    /// Waits for the account notice that the profile was saved.
    private func waitUntilSaved(_ browser: Chromium) async throws {
        try await browser.waitFor(
            "document.getElementById('account-notice-text').textContent === 'Your profile has been saved.' && !document.getElementById('profile-submit').disabled")
    }

    @Test func theAccountScreenEditsTheDisplayNameAndPhotoAndHomeGreetsByThem() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let browser = try await Chromium(name: "app-profile")
        defer { browser.close() }
        try await SampleAppAccountTests.register(browser, at: server.origin, "hana", email: "hana@example.com", password: "larch-ridge-11")
        #expect(try await browser.text("#welcome") == "Welcome, hana")
        #expect(try await browser.text("#avatar-initial") == "H")
        #expect(try await browser.isVisible("#avatar-photo") == false)

        try await browser.click("#go-account")
        try await browser.waitForVisible("#profile-form")
        #expect(try await value(browser, "profile-name") == "")

        // Refused by the server: its message, and nothing saved.
        try await save(browser, name: "Hana Kim", photo: "http://example.com/hana.png")
        try await browser.waitForVisible("#profile-error")
        #expect(try await browser.text("#profile-error") == "photoURL must be an https URL.")
        try await save(browser, name: String(repeating: "n", count: 257), photo: "")
        try await browser.waitFor("document.getElementById('profile-error').textContent.startsWith('displayName')")
        #expect(try await browser.text("#profile-error") == "displayName is too long (at most 256 characters).")
        try await browser.screenshot("1-refused", of: "#profile-form")
        let token = try #require(try await browser.evaluate("JSON.parse(localStorage.getItem('gatehouse.session')).sessionToken") as? String)
        let stored = "{ viewer { user { displayName photoURL } } }"
        #expect(try backdoor.graphQL(stored, token: token).at("data", "viewer", "user")?.serializedString()
            == #"{"displayName":null,"photoURL":null}"#)

        // Saved: the photo shows in place of the initial, here and on the home screen.
        let photo = server.origin + "/favicon.ico"
        try await save(browser, name: "  Hana Kim ", photo: photo)
        try await waitUntilSaved(browser)
        #expect(try await browser.isVisible("#profile-error") == false)
        #expect(try await value(browser, "profile-name") == "Hana Kim")
        try await browser.waitForVisible("#profile-photo")
        #expect(try await browser.isVisible("#profile-initial") == false)
        #expect(try await browser.evaluate("document.getElementById('profile-photo').alt") as? String == "Your photo")
        #expect(try backdoor.graphQL(stored, token: token).at("data", "viewer", "user", "displayName")?.stringValue == "Hana Kim")
        try await browser.screenshot("2-saved")
        try await browser.click("#account .to-home")
        #expect(try await browser.text("#welcome") == "Welcome, Hana Kim")
        try await browser.waitForVisible("#avatar-photo")
        try await browser.screenshot("3-home")

        // After a reload too, from the server's answer.
        try await browser.reload(until: Self.ready)
        #expect(try await browser.text("#welcome") == "Welcome, Hana Kim")
        try await browser.waitForVisible("#avatar-photo")

        // A photo that does not load: the initial stays.
        try await browser.click("#go-account")
        try await browser.waitForVisible("#profile-form")
        #expect(try await value(browser, "profile-photo-url") == photo)
        try await save(browser, name: "Hana Kim", photo: server.origin + "/no-such-photo.png")
        try await waitUntilSaved(browser)
        try await browser.waitFor("document.getElementById('profile-photo').complete")
        #expect(try await browser.isVisible("#profile-photo") == false)
        #expect(try await browser.text("#profile-initial") == "H")

        // Emptied fields remove both: the greeting is by username again.
        try await save(browser, name: "", photo: "")
        try await waitUntilSaved(browser)
        #expect(try backdoor.graphQL(stored, token: token).at("data", "viewer", "user")?.serializedString()
            == #"{"displayName":null,"photoURL":null}"#)
        try await browser.click("#account .to-home")
        #expect(try await browser.text("#welcome") == "Welcome, hana")
        #expect(try await browser.isVisible("#avatar-photo") == false)
        #expect(try await browser.cspViolations() == [])
    }
}
