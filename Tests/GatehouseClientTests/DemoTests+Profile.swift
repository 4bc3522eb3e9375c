import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// The demo's `profile` command: shown, the display name and photo set and cleared, the server's
/// refusals in words, and the greeting by display name.
extension DemoTests {
    @Test func profileShowsSetsAndClearsTheDisplayNameAndPhoto() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        let run = { (arguments: [String]) throws -> Run in try demo(arguments, server: server, sessionDirectory: sessions) }

        let signedOut = try run(["profile"])
        #expect(signedOut.status == 1)
        #expect(signedOut.output == "Not logged in.\n")
        #expect(try run(["register", "alice", "larch-ridge-11", "alice@example.com"]).status == 0)
        let empty = try run(["profile"])
        #expect(empty.status == 0, "\(empty.error)")
        #expect(empty.output == "Display name: (not set)\nPhoto: (not set)\n")

        let named = try run(["profile", "name", "Alice Liddell"])
        #expect(named.status == 0, "\(named.error)")
        #expect(named.output == "Profile saved.\nDisplay name: Alice Liddell\nPhoto: (not set)\n")
        #expect(try run(["whoami"]).output == "Welcome Alice Liddell\n")

        let refused = try run(["profile", "photo", "http://example.com/alice.png"])
        #expect(refused.status == 1)
        #expect(refused.error == "The photo's address must start with https://.\n")
        let empty142 = try run(["profile", "name", "   "])
        #expect(empty142.error == "The display name must not be empty.\n")
        let photographed = try run(["profile", "photo", "https://example.com/alice.png"])
        #expect(photographed.output == "Profile saved.\nDisplay name: Alice Liddell\nPhoto: https://example.com/alice.png\n")

        let unnamed = try run(["profile", "clear", "name"])
        #expect(unnamed.output == "Profile saved.\nDisplay name: (not set)\nPhoto: https://example.com/alice.png\n")
        #expect(try run(["whoami"]).output == "Welcome alice@example.com\n")
        #expect(try run(["profile", "clear", "photo"]).output == "Profile saved.\nDisplay name: (not set)\nPhoto: (not set)\n")

        // The server declares no fields of the app's own.
        let unknown = try run(["profile", "set", "bio", "Hello"])
        #expect(unknown.status == 1)
        #expect(unknown.error == "The server keeps no user field named bio.\n")
        let usage = try run(["profile", "clear", "email"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("profile clear name|photo"))
    }

    @Test func profileSetsTheAppsOwnFields() throws {
        let server = try GatehouseAuthProfileTests.serverDeclaringFields()
        defer { server.stop() }
        let sessions = TemporaryDirectory.url(prefix: "gh-demo").appendingPathComponent("session")
        defer { try? FileManager.default.removeItem(at: sessions.deletingLastPathComponent()) }
        let run = { (arguments: [String]) throws -> Run in try demo(arguments, server: server, sessionDirectory: sessions) }
        #expect(try run(["register", "finn", "larch-ridge-11"]).status == 0)

        #expect(try run(["profile", "set", "bio", "Hello there"]).status == 0)  // not JSON: text
        #expect(try run(["profile", "set", "favoriteColors", #"["teal", "amber"]"#]).status == 0)
        let set = try run(["profile", "set", "preferences", #"{"dark": true}"#])
        #expect(set.status == 0, "\(set.error)")
        #expect(set.output == """
            Profile saved.
            Display name: (not set)
            Photo: (not set)
            bio: "Hello there"
            newsletter: (not set)
            age: (not set)
            favoriteColors: ["teal","amber"]
            plan: (not set)
            supportNotes: (not set)
            preferences: {"dark":true}

            """)
        let cleared = try run(["profile", "set", "bio", "null"])
        #expect(cleared.output.contains("\nbio: (not set)\n"))

        let serverOnly = try run(["profile", "set", "plan", "PRO"])
        #expect(serverOnly.status == 1)
        #expect(serverOnly.error == "Only the app's server can change plan.\n")
        let tooMany = try run(["profile", "set", "favoriteColors", #"["a", "b", "c"]"#])
        #expect(tooMany.error == "FavoriteColors has too many items (at most 2).\n")
        #expect(try run(["profile", "set", "age", "thirty"]).status == 1)  // a coercion error
        #expect(try run(["profile"]).output.contains("\nage: (not set)\n"))
    }
}
