import Auth
import Foundation
import GraphQL
import Postgres
import Sodium
import Testing

/// logIn through GraphQL: by username or email, sessions, installation ids, rehashing.
@Suite struct LogInTests {
    /// Signs up `Alice` / `Alice@Example.com`; each name must log her in.
    @Test(arguments: ["Alice", "alice", "ALICE", "Alice@Example.com", "alice@example.com", "ALICE@EXAMPLE.COM"])
    func byUsernameOrEmailIgnoringCase(_ name: String) throws {
        let h = try Harness()
        let signedUp = try h.signedUp("Alice", email: "Alice@Example.com")
        let result = h.logIn(name, Harness.password)
        #expect(result.errors.isEmpty, "\(result.json)")
        let viewer = try #require(result.data?["logIn"]?["viewer"])
        #expect(viewer["user"] == signedUp["user"])  // username as stored, same ids and dates
        let token = try #require(viewer["sessionToken"]?.stringValue)
        #expect(token.wholeMatch(of: #/r:[0-9a-f]{32}/#) != nil)
        #expect(h.viewer(token: token).data?["viewer"]?["user"]?["username"] == "Alice")
    }

    /// A log-in name means one account: a username may not be another user's email (202), nor
    /// an email another user's username (203), whatever the case; so an email typed into
    /// `username` always logs its owner in.
    @Test func usernamesAndEmailsDoNotShadowEachOther() throws {
        let h = try Harness()
        _ = try h.signedUp("carol", password: "carol-password", email: "dave@example.com")
        let username = h.signUp(["username": "DAVE@example.com", "password": "dave-password"])
        #expect(onlyError(username)?.code == 202, "\(username.json)")
        let emailShaped = h.signUp(["username": "erin", "password": "erin-password", "email": "carol@x"])
        #expect(emailShaped.errors.isEmpty, "\(emailShaped.json)")
        _ = try h.signedUp("frank@example.com", password: "frank-password")
        let taken = h.signUp(["username": "gina", "password": "gina-password", "email": "FRANK@example.com"])
        #expect(onlyError(taken)?.code == 203, "\(taken.json)")
        #expect(h.logIn("dave@example.com", "carol-password").errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM users") == 3)
    }

    /// A wrong password and an unknown user get the same error (and write nothing).
    @Test func wrongPasswordAndUnknownUserLookAlike() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        let wrong = h.logIn("alice", "not the password")
        let unknown = h.logIn("nobody", "not the password")
        #expect(wrong.json == unknown.json)
        #expect(onlyError(wrong)?.code == 101)
        #expect(onlyError(wrong)?.message == "Invalid username/password.")
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
    }

    @Test func eachLogInCreatesANewSession() throws {
        let h = try Harness()
        let first = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let second = try h.loggedIn("alice"), third = try h.loggedIn("alice")
        #expect(Set([first, second, third]).count == 3)
        #expect(try h.count("SELECT count(*) FROM sessions") == 3)
        for token in [first, second, third] {
            #expect(h.viewer(token: token).data?["viewer"]?["sessionToken"]?.stringValue == token)
        }
    }

    /// A new session for a user and installation replaces that user's other sessions with the
    /// same installation id; other installations and other users keep theirs.
    @Test func sameInstallationIdReplacesTheSession() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let bobSameInstallation = try h.loggedIn("bob", installationId: "device-1")
        let first = try h.loggedIn("alice", installationId: "device-1")
        let second = try h.loggedIn("alice", installationId: "device-1")
        #expect(onlyError(h.viewer(token: first))?.code == 209)
        #expect(h.viewer(token: second).errors.isEmpty)
        #expect(h.viewer(token: bob).errors.isEmpty)
        #expect(h.viewer(token: bobSameInstallation).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE u.username = 'alice' AND s.installation_id = 'device-1'") == 1)
    }

    @Test func differentInstallationIdsKeepBothSessions() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", installationId: "device-0")
        let first = try h.loggedIn("alice", installationId: "device-1")
        let second = try h.loggedIn("alice", installationId: "device-2")
        let none = try h.loggedIn("alice")
        let alsoNone = try h.loggedIn("alice")
        for token in [first, second, none, alsoNone] { #expect(h.viewer(token: token).errors.isEmpty) }
        #expect(try h.count("SELECT count(*) FROM sessions") == 5)
        let installations = try h.rows("SELECT installation_id FROM sessions ORDER BY created_at, installation_id")
            .map { try $0.decode(String?.self, at: 0) }
        #expect(Set(installations) == ["device-0", "device-1", "device-2", nil])
    }

    /// A bcrypt hash imported from a Parse user table verifies and becomes argon2id.
    @Test(arguments: [
        "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO",
        "$2a$10$S4O./y0RgzQ35VUZrfIUMOO/fErhlEjYtWAldvtg4h9BdisCTPGWK",
        "$2y$10$KxAK4gg4tUjl.oZb7g3.xO2OIiHBSq/4/2LLbgcOElrCtvhTxkPT.",
    ])
    func bcryptHashIsAcceptedAndReplaced(_ bcrypt: String) throws {
        let h = try Harness()
        let old = Date(timeIntervalSince1970: 1_700_000_000)
        try h.execute("""
            INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
            VALUES ('ImportedA1', 'imported', NULL, \(bcrypt), '{"ImportedA1":{"read":true,"write":true}}'::jsonb, \(old), \(old))
            """)
        #expect(onlyError(h.logIn("imported", "Correct horse battery staple"))?.code == 101)
        #expect(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0) == bcrypt)
        let result = h.logIn("imported", "correct horse battery staple")
        #expect(result.errors.isEmpty, "\(result.json)")
        let user = try #require(result.data?["logIn"]?["viewer"]?["user"])
        #expect(user["objectId"] == "ImportedA1")
        #expect(user["createdAt"] == "2023-11-14T22:13:20.000Z")
        #expect(user["updatedAt"] != "2023-11-14T22:13:20.000Z")  // the password hash changed
        let stored = try #require(try h.rows("SELECT password_hash, updated_at FROM users").first)
        let hash = try stored.decode(String.self, at: 0)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(user["updatedAt"]?.stringValue.flatMap { ISO8601DateFormatter.withMilliseconds.date(from: $0) }
            == (try stored.decode(Date.self, at: 1)))
        #expect(try PasswordHasher(cost: .minimum).verify("correct horse battery staple", against: hash) == .valid(needsRehash: false))
        // And the new hash keeps working.
        _ = try h.loggedIn("imported", "correct horse battery staple")
        #expect(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0) == hash)
    }

    /// A hash made with other argon2id parameters is replaced at the configured cost on log-in.
    @Test func outdatedArgon2idParametersAreRehashed() throws {
        let cost = PasswordHasher.Cost(opsLimit: 2, memLimit: 16 * 1024)
        let h = try Harness(cost: cost)
        let old = try PasswordHasher(cost: .minimum).hash(Harness.password)
        let now = Date()
        try h.execute("""
            INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
            VALUES ('OldHashAb1', 'old', \(old), '{}'::jsonb, \(now), \(now))
            """)
        #expect(onlyError(h.logIn("old", "wrong password"))?.code == 101)
        #expect(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0) == old)
        _ = try h.loggedIn("old")
        let new = try #require(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0))
        #expect(new != old)
        #expect(new.hasPrefix("$argon2id$v=19$m=16,t=2,p=1$"), "\(new)")
        // A hash at the configured cost is left alone.
        _ = try h.loggedIn("old")
        #expect(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0) == new)
    }

    @Test func signUpHashIsArgon2idAtTheConfiguredCost() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        let hash = try #require(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0))
        #expect(hash.hasPrefix("$argon2id$v=19$m=8,t=1,p=1$"), "\(hash)")
        #expect(!hash.contains(Harness.password))
    }
}
