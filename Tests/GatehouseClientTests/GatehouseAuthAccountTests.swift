import Foundation
import GatehouseClient
import ServerTestSupport
import Testing

/// The account lifecycle through GatehouseAuth against an in-process server: reset and
/// verification links read from the server's outbox (``ServerDatabase``), changes, deletion,
/// sessions, and every new error case as the server produces it.
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthAccountTests {
    func client(_ server: InProcessServer, store: any SessionStore = MemorySessionStore(), installationId: String? = nil)
        throws -> GatehouseAuth
    {
        try GatehouseAuth(
            configuration: GatehouseConfiguration(serverURL: server.url, installationId: installationId), store: store)
    }

    /// A client signed in to a new account `name`, password `larch-ridge-11`, email `name@example.com`.
    func signedUp(_ server: InProcessServer, _ name: String, store: any SessionStore = MemorySessionStore()) async throws
        -> GatehouseAuth
    {
        let auth = try client(server, store: store)
        try await auth.signUp(username: name, password: "larch-ridge-11", email: "\(name)@example.com")
        return auth
    }

    /// A client logged in as `name` with `password`.
    func loggedIn(_ server: InProcessServer, _ name: String, _ password: String = "larch-ridge-11", installationId: String? = nil)
        async throws -> GatehouseAuth
    {
        let auth = try client(server, installationId: installationId)
        try await auth.logIn(username: name, password: password)
        return auth
    }

    @Test func aPasswordResetThroughTheMailedLinkEndsEverySession() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let here = try await signedUp(server, "alice")
        let elsewhere = try await loggedIn(server, "alice")
        var changes = here.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() != .some(nil))

        let anonymous = try client(server)
        try await anonymous.sendPasswordReset(email: "ALICE@example.com")
        try await anonymous.sendPasswordReset(email: "nobody@example.com")  // no such account: the same answer
        let link = try #require(try ServerDatabase(server).link("reset_password", to: "alice@example.com"))
        #expect(link.username == "alice")

        // Confirmed on the device signed in as alice: its session ended with the others.
        try await here.confirmPasswordReset(username: link.username, token: link.token, newPassword: "larch-ridge-22")
        #expect(await changes.next() == .some(nil))
        #expect(here.currentUser == nil)
        await #expect(throws: GatehouseError.sessionInvalid) { try await elsewhere.refreshCurrentUser() }

        await #expect(throws: GatehouseError.invalidLink) {  // used up
            try await anonymous.confirmPasswordReset(username: link.username, token: link.token, newPassword: "larch-ridge-33")
        }
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await anonymous.logIn(username: "alice", password: "larch-ridge-11")
        }
        #expect(try await anonymous.logIn(username: "alice", password: "larch-ridge-22").username == "alice")
    }

    @Test func resetLinkErrorsMapToCases() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let database = try ServerDatabase(server)
        try await signedUp(server, "bob").logOut()
        try await signedUp(server, "carol").logOut()
        let auth = try client(server)
        try await auth.sendPasswordReset(email: "bob@example.com")
        let link = try #require(try database.link("reset_password", to: "bob@example.com"))

        await #expect(throws: GatehouseError.weakPassword) {
            try await auth.confirmPasswordReset(username: "bob", token: link.token, newPassword: "short")
        }
        await #expect(throws: GatehouseError.invalidLink) {  // another user's name
            try await auth.confirmPasswordReset(username: "carol", token: link.token, newPassword: "larch-ridge-22")
        }
        await #expect(throws: GatehouseError.invalidLink) {
            try await auth.confirmPasswordReset(username: "bob", token: "not-a-token", newPassword: "larch-ridge-22")
        }
        await #expect(throws: GatehouseError.server(code: -1, message: "you must provide a token")) {
            try await auth.confirmPasswordReset(username: "bob", token: "", newPassword: "larch-ridge-22")
        }
        try database.execute("UPDATE account_tokens SET expires_at = now() - interval '1 second'")
        do {
            try await auth.confirmPasswordReset(username: "bob", token: link.token, newPassword: "larch-ridge-22")
            Issue.record("an expired link worked")
        } catch {
            #expect(error == .linkExpired)
            #expect(error.code == -1)
            #expect(error.errorDescription == "That link has expired. Ask for a new one.")
        }
        #expect(try await auth.logIn(username: "bob", password: "larch-ridge-11").username == "bob")
    }

    @Test func emailVerificationThroughTheMailedLink() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let database = try ServerDatabase(server)
        let store = MemorySessionStore()
        let auth = try await signedUp(server, "dave", store: store)
        #expect(auth.currentUser?.emailVerified == false)

        try await auth.sendEmailVerification()
        let link = try #require(try database.link("verify_email", to: "dave@example.com"))
        await #expect(throws: GatehouseError.invalidLink) {
            try await auth.verifyEmail(username: link.username, token: "not-a-token")
        }
        try await signedUp(server, "erin").logOut()
        await #expect(throws: GatehouseError.invalidLink) {  // another user's name
            try await auth.verifyEmail(username: "erin", token: link.token)
        }
        try await auth.verifyEmail(username: link.username, token: link.token)
        // The stored user is refreshed: here and on the next launch.
        #expect(auth.currentUser?.emailVerified == true)
        #expect(try client(server, store: store).currentUser?.emailVerified == true)
        try await auth.verifyEmail(username: link.username, token: link.token)  // again, while it has not expired

        // Verified from a client that is not signed in: nothing stored changes.
        let anonymous = try client(server)
        try await anonymous.verifyEmail(username: link.username, token: link.token)
        #expect(anonymous.currentUser == nil)
    }

    @Test func sendingAVerificationNeedsASignedInUserWithAnEmail() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        await #expect(throws: GatehouseError.sessionInvalid) { try await client(server).sendEmailVerification() }
        let auth = try client(server)
        try await auth.signUp(username: "frank", password: "larch-ridge-11")
        do {
            try await auth.sendEmailVerification()
            Issue.record("sent a verification without an email")
        } catch {
            #expect(error == .noEmail)
            #expect(error.code == nil)
            #expect(error.errorDescription == "Your account has no email address. Add one first.")
        }
    }

    @Test func emailAndPasswordChangesKeepThisSessionAndRefreshTheUser() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try await signedUp(server, "gina", store: store)
        let elsewhere = try await loggedIn(server, "gina")
        try await signedUp(server, "hank").logOut()
        var changes = auth.authStateChanges.makeAsyncIterator()
        _ = await changes.next()

        let changed = try await auth.updateEmail("Gina2@example.com")
        #expect(changed.email == "Gina2@example.com")
        #expect(changed.emailVerified == false)
        #expect(auth.currentUser == changed)
        #expect(await changes.next() == .some(changed))
        #expect(try client(server, store: store).currentUser == changed)
        await #expect(throws: GatehouseError.invalidEmail) { try await auth.updateEmail("not-an-email") }
        await #expect(throws: GatehouseError.emailTaken) { try await auth.updateEmail("HANK@example.com") }

        await #expect(throws: GatehouseError.weakPassword) { try await auth.updatePassword("short") }
        let token = auth.sessionToken
        try await auth.updatePassword("larch-ridge-22")
        #expect(auth.sessionToken == token)
        #expect(try await auth.refreshCurrentUser()?.email == "Gina2@example.com")
        await #expect(throws: GatehouseError.sessionInvalid) { try await elsewhere.refreshCurrentUser() }
        #expect(try await loggedIn(server, "gina", "larch-ridge-22").currentUser?.username == "gina")

        // Signed out: no request, no user to change.
        await #expect(throws: GatehouseError.sessionInvalid) { try await client(server).updateEmail("x@example.com") }
        await #expect(throws: GatehouseError.sessionInvalid) { try await client(server).updatePassword("larch-ridge-33") }
    }

    @Test func changesAndDeletionNeedARecentLogInOrTheCurrentPassword() async throws {
        // No session cache, so the aged session is read from the database at once.
        let server = try InProcessServer { $0.sessionCache = false }
        defer { server.stop() }
        let auth = try await signedUp(server, "ivy")
        try ServerDatabase(server).execute("UPDATE sessions SET created_at = created_at - interval '1 day'")

        do {
            try await auth.updateEmail("ivy2@example.com")
            Issue.record("an old session changed the email")
        } catch {
            #expect(error == .recentLoginRequired)
            #expect(error.code == 206)
            #expect(error.errorDescription == "For your security, enter your current password to make this change.")
        }
        await #expect(throws: GatehouseError.recentLoginRequired) { try await auth.updatePassword("larch-ridge-22") }
        await #expect(throws: GatehouseError.recentLoginRequired) { try await auth.deleteAccount() }
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.updateEmail("ivy2@example.com", currentPassword: "wrong-password")
        }
        #expect(auth.currentUser?.email == "ivy@example.com")

        #expect(try await auth.updateEmail("ivy2@example.com", currentPassword: "larch-ridge-11").email == "ivy2@example.com")
        try await auth.updatePassword("larch-ridge-22", currentPassword: "larch-ridge-11")
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.deleteAccount(currentPassword: "larch-ridge-11")
        }
        try await auth.deleteAccount(currentPassword: "larch-ridge-22")
        #expect(auth.currentUser == nil)
    }

    @Test func deletingTheAccountSignsOutEverywhereAndFreesTheName() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try await signedUp(server, "jack", store: store)
        let elsewhere = try await loggedIn(server, "jack")
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() != .some(nil))

        try await auth.deleteAccount()
        #expect(await changes.next() == .some(nil))
        #expect(auth.currentUser == nil)
        #expect(store.read(.session) == nil)
        await #expect(throws: GatehouseError.sessionInvalid) { try await elsewhere.refreshCurrentUser() }
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.logIn(username: "jack", password: "larch-ridge-11")
        }
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.deleteAccount() }
        #expect(try await signedUp(server, "jack").currentUser?.email == "jack@example.com")
    }

    @Test func sessionsAreListedAndRevoked() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let phone = try client(server, installationId: "phone")
        try await phone.signUp(username: "kate", password: "larch-ridge-11")
        let laptop = try await loggedIn(server, "kate", installationId: "laptop")
        let tablet = try await loggedIn(server, "kate", installationId: "tablet")
        let other = try await signedUp(server, "liam")

        let sessions = try await phone.sessions()
        #expect(sessions.map(\.installationId) == ["tablet", "laptop", "phone"])  // newest first
        #expect(sessions.map(\.isCurrent) == [false, false, true])
        for session in sessions {
            #expect(session.objectId.count == 10)
            #expect(Data(base64Encoded: session.id).map { String(decoding: $0, as: UTF8.self) } == "_Session:" + session.objectId)
            #expect(session.createdAt <= session.lastUsedAt)
            #expect(session.expiresAt > session.createdAt)
        }
        #expect(try await other.sessions().count == 1)

        try await phone.revokeSession(sessions[1])
        await #expect(throws: GatehouseError.sessionInvalid) { try await laptop.refreshCurrentUser() }
        #expect(try await phone.sessions().map(\.installationId) == ["tablet", "phone"])
        await #expect(throws: GatehouseError.server(code: 101, message: "Object not found.")) {
            try await phone.revokeSession(sessions[1])  // ended already
        }
        await #expect(throws: GatehouseError.server(code: 101, message: "Object not found.")) {
            try await other.revokeSession(sessions[0])  // another user's
        }

        #expect(try await phone.revokeOtherSessions() == 1)
        await #expect(throws: GatehouseError.sessionInvalid) { try await tablet.refreshCurrentUser() }
        #expect(try await phone.revokeOtherSessions() == 0)
        let current = try #require(try await phone.sessions().first)
        #expect(current.isCurrent)

        // Ending this device's own session signs out here.
        var changes = phone.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() != .some(nil))
        try await phone.revokeSession(current)
        #expect(await changes.next() == .some(nil))
        #expect(phone.currentUser == nil)
        await #expect(throws: GatehouseError.sessionInvalid) { try await phone.sessions() }
        await #expect(throws: GatehouseError.sessionInvalid) { try await phone.revokeOtherSessions() }
        await #expect(throws: GatehouseError.sessionInvalid) { try await phone.revokeSession(current) }
    }

    @Test func requiredVerificationRefusesLogInUntilTheEmailIsVerified() async throws {
        let server = try InProcessServer { $0.verifyEmails = .required }
        defer { server.stop() }
        let auth = try client(server)
        do {
            try await auth.signUp(username: "mia", password: "larch-ridge-11", email: "mia@example.com")
            Issue.record("signed in with an unverified email")
        } catch {
            #expect(error == .emailNotVerified)
            #expect(error.code == 205)
            #expect(error.errorDescription?.contains("not verified") == true)
        }
        #expect(auth.currentUser == nil)
        await #expect(throws: GatehouseError.emailNotVerified) { try await auth.logIn(username: "mia", password: "larch-ridge-11") }
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.logIn(username: "mia", password: "wrong-password")
        }

        let link = try #require(try ServerDatabase(server).link("verify_email", to: "mia@example.com"))
        try await auth.verifyEmail(username: link.username, token: link.token)
        #expect(try await auth.logIn(username: "mia", password: "larch-ridge-11").emailVerified == true)
    }
}
