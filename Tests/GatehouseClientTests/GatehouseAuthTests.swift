import ServerTestSupport
import Foundation
import GatehouseClient
import Testing

/// GatehouseAuth end to end against an in-process server on its own database.
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthTests {
    func client(_ server: InProcessServer, store: any SessionStore = MemorySessionStore(), appId: String? = nil,
                installationId: String? = nil) throws -> GatehouseAuth {
        try GatehouseAuth(
            configuration: GatehouseConfiguration(serverURL: server.url, applicationId: appId, installationId: installationId),
            store: store)
    }

    @Test func signUpStoresTheSessionAndAnnouncesTheUser() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try client(server, store: store)
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(nil))  // the current state first: signed out

        let user = try await auth.signUp(username: "alice", password: "larch-ridge-123", email: "alice@example.com")
        #expect(user.username == "alice")
        #expect(user.email == "alice@example.com")
        #expect(user.emailVerified == false)
        #expect(user.objectId.count == 10)
        #expect(Data(base64Encoded: user.id).map { String(decoding: $0, as: UTF8.self) } == "_User:" + user.objectId)
        #expect(await changes.next() == .some(user))
        #expect(auth.currentUser == user)
        #expect(auth.sessionToken?.hasPrefix("r:") == true)
        #expect(store.read(.session) != nil)

        // Another launch on the same store: signed in at once, and the server agrees.
        let relaunched = try client(server, store: store)
        #expect(relaunched.currentUser == user)
        #expect(relaunched.sessionToken == auth.sessionToken)
        var relaunchedChanges = relaunched.authStateChanges.makeAsyncIterator()
        #expect(await relaunchedChanges.next() == .some(user))
        #expect(try await relaunched.refreshCurrentUser() == user)
    }

    @Test func logInByUsernameOrEmailThenLogOut() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        try await client(server).signUp(username: "bob", password: "larch-ridge-123", email: "bob@example.com")

        let store = MemorySessionStore()
        let auth = try client(server, store: store)
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(nil))
        let byEmail = try await auth.logIn(username: "BOB@example.com", password: "larch-ridge-123")
        #expect(byEmail.username == "bob")
        #expect(await changes.next() == .some(byEmail))
        let firstToken = try #require(auth.sessionToken)
        let byName = try await auth.logIn(username: "Bob", password: "larch-ridge-123")
        #expect(byName.objectId == byEmail.objectId)
        #expect(auth.sessionToken != firstToken)
        #expect(await changes.next() == .some(byName))  // a new sign-in, though the same user

        try await auth.logOut()
        #expect(await changes.next() == .some(nil))
        #expect(auth.currentUser == nil)
        #expect(auth.sessionToken == nil)
        #expect(store.read(.session) == nil)
        #expect(try await auth.refreshCurrentUser() == nil)
        try await auth.logOut()  // signed out already: nothing happens
    }

    @Test func anInvalidSessionIsClearedAndAnnounced() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try client(server, store: store)
        try await auth.signUp(username: "carol", password: "larch-ridge-123")
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() != .some(nil))

        // The same session logged out elsewhere (a copy of the stored session in another client).
        let copy = MemorySessionStore()
        copy.write(try #require(store.read(.session)), for: .session)
        try await client(server, store: copy).logOut()

        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.refreshCurrentUser() }
        #expect(await changes.next() == .some(nil))
        #expect(auth.currentUser == nil)
        #expect(store.read(.session) == nil)
        // The next log-in works as usual.
        try await auth.logIn(username: "carol", password: "larch-ridge-123")
        #expect(try await auth.refreshCurrentUser()?.username == "carol")
    }

    struct SignUpCase: Sendable, CustomTestStringConvertible {
        let username: String
        let password: String
        let email: String?
        let expected: GatehouseError
        var testDescription: String { "\(expected)" }
    }

    @Test(arguments: [
        SignUpCase(username: "ALICE", password: "larch-ridge-123", email: nil, expected: .usernameTaken),
        SignUpCase(username: "alice2", password: "larch-ridge-123", email: "Alice@Example.com", expected: .emailTaken),
        SignUpCase(username: "alice3", password: "larch-ridge-123", email: "not-an-email", expected: .invalidEmail),
        SignUpCase(username: "alice4", password: "short", email: nil, expected: .weakPassword),
        SignUpCase(username: "alice5", password: "iloveyou", email: nil, expected: .commonPassword),
        SignUpCase(username: String(repeating: "u", count: 129), password: "larch-ridge-123", email: nil,
                   expected: .fieldTooLong(message: "username is too long (at most 128 characters).")),
        SignUpCase(username: "", password: "larch-ridge-123", email: nil, expected: .server(code: 200, message: "bad or missing username")),
    ])
    func signUpErrorsMapToCases(_ item: SignUpCase) async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        try await client(server).signUp(username: "alice", password: "larch-ridge-123", email: "alice@example.com")
        let auth = try client(server)
        await #expect(throws: item.expected) {
            try await auth.signUp(username: item.username, password: item.password, email: item.email)
        }
        #expect(auth.currentUser == nil)
    }

    @Test func wrongPasswordThenLockout() async throws {
        let server = try InProcessServer { $0.lockoutThreshold = 2 }
        defer { server.stop() }
        try await client(server).signUp(username: "dave", password: "larch-ridge-123")
        let auth = try client(server)
        for _ in 0..<2 {
            do {
                try await auth.logIn(username: "dave", password: "wrong-password")
                Issue.record("a wrong password logged in")
            } catch {
                #expect(error == .invalidCredentials(message: "Invalid username/password.") || error.isAccountLocked)
                #expect(error.code == 101)
            }
        }
        do {
            try await auth.logIn(username: "dave", password: "larch-ridge-123")
            Issue.record("a locked account logged in")
        } catch {
            #expect(error.isAccountLocked, "\(error)")
            #expect(error.code == 101)
            #expect(error.errorDescription?.contains("locked") == true)
        }
        #expect(auth.currentUser == nil)
    }

    @Test func rateLimitedCarriesRetryAfter() async throws {
        let server = try InProcessServer { $0.rateLimitPerAccount = 2 }
        defer { server.stop() }
        let auth = try client(server)
        var last: GatehouseError? = nil
        // The third attempt is refused; two more in case the first ones fell in the window before
        // (windows are aligned to multiples of their length, 15 minutes).
        for _ in 0..<5 {
            do { try await auth.logIn(username: "erin", password: "whatever1") } catch { last = error }
            if case .rateLimited? = last { break }
        }
        guard case .rateLimited(let retryAfter)? = last else {
            Issue.record("expected rateLimited, got \(String(describing: last))")
            return
        }
        #expect((retryAfter ?? 0) > 0)
        #expect(last?.code == 155)
    }

    @Test func theApplicationIdIsSentAndRequired() async throws {
        let server = try InProcessServer { $0.appId = "my-app" }
        defer { server.stop() }
        await #expect(throws: GatehouseError.unauthorized) {
            try await client(server).signUp(username: "frank", password: "larch-ridge-123")
        }
        await #expect(throws: GatehouseError.unauthorized) {
            try await client(server, appId: "other-app").signUp(username: "frank", password: "larch-ridge-123")
        }
        let user = try await client(server, appId: "my-app").signUp(username: "frank", password: "larch-ridge-123")
        #expect(user.username == "frank")
    }

    @Test func theInstallationIdIsGeneratedOnceStoredAndSent() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let first = try client(server, store: store)
        #expect(UUID(uuidString: first.installationId) != nil)
        #expect(store.read(.installationId) == Data(first.installationId.utf8))
        #expect(try client(server, store: store).installationId == first.installationId)
        #expect(try client(server).installationId != first.installationId)

        // Sent as X-Parse-Installation-Id: a log-in from the same installation replaces that
        // installation's earlier session; one from another installation does not.
        try await client(server).signUp(username: "gina", password: "larch-ridge-123")
        let here = try client(server, installationId: "installation-1")
        let sameInstallation = try client(server, installationId: "installation-1")
        let elsewhere = try client(server, installationId: "installation-2")
        try await here.logIn(username: "gina", password: "larch-ridge-123")
        try await elsewhere.logIn(username: "gina", password: "larch-ridge-123")
        try await sameInstallation.logIn(username: "gina", password: "larch-ridge-123")
        await #expect(throws: GatehouseError.sessionInvalid) { try await here.refreshCurrentUser() }
        #expect(try await elsewhere.refreshCurrentUser()?.username == "gina")
        #expect(try await sameInstallation.refreshCurrentUser()?.username == "gina")
    }

    @Test func anUnreachableServerIsANetworkError() async throws {
        let server = try InProcessServer()
        let url = server.url
        server.stop()
        let store = MemorySessionStore()
        let auth = try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: url), store: store)
        do {
            try await auth.logIn(username: "nobody", password: "larch-ridge-123")
            Issue.record("logged in to a stopped server")
        } catch {
            guard case .network = error else { Issue.record("expected a network error, got \(error)"); return }
            #expect(error.code == nil)
        }
    }

    @Test func aServerURLWithoutPathGetsGraphQL() {
        #expect(GatehouseConfiguration(serverURL: URL(string: "http://127.0.0.1:1337")!).serverURL.absoluteString
            == "http://127.0.0.1:1337/graphql")
        #expect(GatehouseConfiguration(serverURL: URL(string: "http://h/api/graphql")!).serverURL.absoluteString
            == "http://h/api/graphql")
    }

    @Test(arguments: [
        (GatehouseError.usernameTaken, 202), (.emailTaken, 203), (.invalidEmail, 125), (.weakPassword, 142), (.commonPassword, 142),
        (.fieldTooLong(message: "email is too long (at most 254 bytes)."), 142),
        (.invalidCredentials(message: "Invalid username/password."), 101), (.sessionInvalid, 209),
        (.rateLimited(retryAfter: nil), 155), (.server(code: 119, message: "x"), 119),
        (.recentLoginRequired, 206), (.invalidLink, -1), (.linkExpired, -1), (.emailNotVerified, 205),
        (.unsupportedProvider, 252), (.invalidProviderToken(provider: "google"), 101), (.providerAlreadyLinked, 208),
        (.lastLogInMethod, 142), (.anonymousIdOfRegularUser, 142),
    ])
    func errorCodes(_ error: GatehouseError, _ code: Int) {
        #expect(error.code == code)
        #expect(error.errorDescription?.isEmpty == false)
    }
}
