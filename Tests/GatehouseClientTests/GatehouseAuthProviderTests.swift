import Foundation
import GatehouseClient
import JSON
import ServerTestSupport
import Testing

/// Third-party log-in, guests and linking in the SDK: the requests it sends and the answers it
/// maps, against a stand-in server with canned answers (``StandInGraphQLServer``), and against an
/// in-process server for what it answers already.
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthProviderTests {
    /// Answers of a stand-in server (``StandInGraphQLServer``).
    enum Canned {
        static let user = #"{"id": "X1VzZXI6YWJjZGVmZ2hpag==", "objectId": "abcdefghij", "username": "k3x9q2m7w1p0z8r4t6y5u3i2o", "createdAt": "2026-12-01T08:00:00.000Z", "updatedAt": "2026-12-01T08:00:00.000Z"}"#
        /// The answer of a successful operation: a new session for ``user``, or the updated user.
        static func success(_ operation: String) -> String {
            operation == "LogInWith"
                ? #"{"data": {"logInWith": {"viewer": {"sessionToken": "r:0123456789abcdef0123456789abcdef", "user": \#(user)}}}}"#
                : #"{"data": {"updateUser": {"user": \#(user)}}}"#
        }
    }

    /// An unsigned JWT-shaped token with `claims` as its payload (the SDK reads it unchecked).
    static func token(_ claims: String) -> String {
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return base64url(#"{"alg":"RS256","kid":"k1"}"#) + "." + base64url(claims) + ".c2lnbmF0dXJl"
    }

    func client(_ url: URL, store: any SessionStore = MemorySessionStore()) throws -> GatehouseAuth {
        try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: url), store: store)
    }

    @Test func logInWithSendsEachProvidersAuthData() async throws {
        let canned = try StandInGraphQLServer(reply: Canned.success)
        defer { canned.stop() }
        let auth = try client(canned.url)
        // `sub` needs base64url's "-" and "_" and padding: a payload of a length not divisible by 3.
        let apple = Self.token(#"{"sub":"001234.abc>>?.0042","iss":"https://appleid.apple.com"}"#)
        let google = Self.token(#"{"sub":"1098765432","aud":"app"}"#)
        let acme = Self.token(#"{"sub":"acme|7"}"#)

        let user = try await auth.logIn(with: .apple(idToken: apple, nonce: "n-1"))
        #expect(user.objectId == "abcdefghij")
        #expect(auth.sessionToken == "r:0123456789abcdef0123456789abcdef")
        try await auth.logIn(with: .apple(idToken: apple, nonce: nil))
        try await auth.logIn(with: .google(idToken: google))
        try await auth.logIn(with: .oidc(provider: "acme", idToken: acme))

        #expect(canned.inputs == [
            #"{"authData":{"apple":{"id":"001234.abc>>?.0042","nonce":"n-1","token":"\#(apple)"}}}"#,
            #"{"authData":{"apple":{"id":"001234.abc>>?.0042","token":"\#(apple)"}}}"#,
            #"{"authData":{"google":{"id":"1098765432","id_token":"\#(google)"}}}"#,
            #"{"authData":{"acme":{"id":"acme|7","id_token":"\#(acme)"}}}"#,
        ])
    }

    @Test func linkAndUnlinkUpdateTheSignedInUsersAuthData() async throws {
        let canned = try StandInGraphQLServer(reply: Canned.success)
        defer { canned.stop() }
        let auth = try client(canned.url)
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.link(.google(idToken: Self.token(#"{"sub":"1"}"#))) }
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.unlink(provider: "google") }
        #expect(canned.inputs.isEmpty)

        try await auth.logIn(with: .anonymous)
        let google = Self.token(#"{"sub":"1098765432"}"#)
        #expect(try await auth.link(.google(idToken: google)).objectId == "abcdefghij")
        try await auth.unlink(provider: "google")
        // Both need a recent log-in, which the current password proves.
        try await auth.link(.google(idToken: google), currentPassword: "password 1")
        try await auth.unlink(provider: "google", currentPassword: "password 1")
        #expect(Array(canned.inputs.dropFirst()) == [
            #"{"fields":{"authData":{"google":{"id":"1098765432","id_token":"\#(google)"}}},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#,
            #"{"fields":{"authData":{"google":null}},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#,
            #"{"currentPassword":"password 1","fields":{"authData":{"google":{"id":"1098765432","id_token":"\#(google)"}}},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#,
            #"{"currentPassword":"password 1","fields":{"authData":{"google":null}},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#,
        ])
    }

    @Test func theGuestIdIsRandomAndKeptInTheStore() async throws {
        let canned = try StandInGraphQLServer(reply: Canned.success)
        defer { canned.stop() }
        let store = MemorySessionStore()
        try await client(canned.url, store: store).logIn(with: .anonymous)
        try await client(canned.url, store: store).logIn(with: .anonymous)  // another launch
        try await client(canned.url).logIn(with: .anonymous)  // another installation
        let stored = try #require(store.read(.anonymousId))
        let id = String(decoding: stored, as: UTF8.self)
        #expect(UUID(uuidString: id) != nil)
        #expect(canned.inputs.count == 3)
        #expect(Array(canned.inputs.prefix(2)) == Array(repeating: #"{"authData":{"anonymous":{"id":"\#(id)"}}}"#, count: 2))
        #expect(!canned.inputs[2].contains(id))
        #expect(canned.inputs[2].hasPrefix(#"{"authData":{"anonymous":{"id":""#))
    }

    @Test(arguments: ["", "not-a-token", "a.b", "a.%%%.c", Self.token(#"{"iss":"x"}"#), Self.token(#"{"sub":""}"#), Self.token(#"{"sub":7}"#)])
    func aTokenWithoutASubjectIsRefusedWithoutARequest(_ token: String) async throws {
        let canned = try StandInGraphQLServer(reply: Canned.success)
        defer { canned.stop() }
        let auth = try client(canned.url)
        await #expect(throws: GatehouseError.invalidProviderToken(provider: "google")) { try await auth.logIn(with: .google(idToken: token)) }
        await #expect(throws: GatehouseError.invalidProviderToken(provider: "acme")) {
            try await auth.logIn(with: .oidc(provider: "acme", idToken: token))
        }
        #expect(canned.inputs.isEmpty)
        #expect(auth.currentUser == nil)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let code: Int
        let message: String
        let expected: GatehouseError
        var testDescription: String { "\(code) \(message)" }
    }

    @Test(arguments: [
        ErrorCase(code: 252, message: "This authentication method is unsupported.", expected: .unsupportedProvider),
        ErrorCase(code: 101, message: "Invalid authData for provider google.", expected: .invalidProviderToken(provider: "google")),
        ErrorCase(code: 208, message: "this auth is already used", expected: .providerAlreadyLinked),
        ErrorCase(code: 142, message: "The last way to log in cannot be removed.", expected: .lastLogInMethod),
        ErrorCase(code: 142, message: "An anonymous id can only be linked to a guest account.", expected: .anonymousIdOfRegularUser),
        ErrorCase(code: 206, message: "Recent authentication required.", expected: .recentLoginRequired),
        // Neighbours keep their cases.
        ErrorCase(code: 101, message: "Invalid username/password.", expected: .invalidCredentials(message: "Invalid username/password.")),
        ErrorCase(code: 142, message: "Password is too common.", expected: .commonPassword),
        ErrorCase(code: 155, message: "Too many requests.", expected: .rateLimited(retryAfter: nil)),
    ])
    func providerErrorsMapToCases(_ item: ErrorCase) async throws {
        let canned = try StandInGraphQLServer { operation in
            operation == "LogInWith" && item.code != 252 ? Canned.success(operation)
                : StandInGraphQLServer.error(code: item.code, message: item.message)
        }
        defer { canned.stop() }
        let google = Self.token(#"{"sub":"1"}"#)
        if item.code == 252 {
            await #expect(throws: item.expected) { try await client(canned.url).logIn(with: .google(idToken: google)) }
            return
        }
        // Signed in (the canned log-in succeeds); then link and unlink get the error.
        let auth = try client(canned.url)
        try await auth.logIn(with: .anonymous)
        await #expect(throws: item.expected) { try await auth.link(.google(idToken: google)) }
        await #expect(throws: item.expected) { try await auth.unlink(provider: "google") }
        #expect(auth.currentUser != nil)
        #expect(item.expected.code == item.code)
        #expect(item.expected.errorDescription?.isEmpty == false)
    }

    @Test func aGuestComesBackAsTheSameUserAndAnotherInstallationIsAnotherGuest() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try client(server.url, store: store)
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(nil))
        let guest = try await auth.logIn(with: .anonymous)
        #expect(await changes.next() == .some(guest))
        #expect(guest.username?.wholeMatch(of: /[a-z0-9]{25}/) != nil)
        #expect(guest.email == nil)
        #expect(try await auth.refreshCurrentUser() == guest)

        try await auth.logOut()
        let again = try await client(server.url, store: store).logIn(with: .anonymous)
        #expect(again.objectId == guest.objectId)
        #expect(try await client(server.url).logIn(with: .anonymous).objectId != guest.objectId)
    }

    @Test func linkAndUnlinkErrorsFromTheServer() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let guestStore = MemorySessionStore()
        let guest = try client(server.url, store: guestStore)
        try await guest.logIn(with: .anonymous)
        await #expect(throws: GatehouseError.lastLogInMethod) { try await guest.unlink(provider: "anonymous") }

        // Another user's client with the same guest id: that id is linked to the guest already.
        let otherStore = MemorySessionStore()
        otherStore.write(try #require(guestStore.read(.anonymousId)), for: .anonymousId)
        let other = try client(server.url, store: otherStore)
        try await other.signUp(username: "bob", password: "larch-ridge-11")
        await #expect(throws: GatehouseError.providerAlreadyLinked) { try await other.link(.anonymous) }
        await #expect(throws: GatehouseError.unsupportedProvider) {
            try await other.link(.oidc(provider: "acme", idToken: Self.token(#"{"sub":"1"}"#)))
        }
        #expect(try await other.refreshCurrentUser()?.username == "bob")
    }

    @Test func providerTokensFromALocalOpenIDConnectProvider() async throws {
        let provider = try OIDCTestProvider.start()
        defer { provider.stop() }
        let keys = #""client_ids": ["\#(OIDCTestProvider.clientID)"], "issuer": "\#(provider.issuer)", "jwks_uri": "\#(provider.jwksURI)""#
        let server = try InProcessServer { $0.authProviders = #"{"google": {\#(keys)}, "apple": {\#(keys)}, "acme": {\#(keys)}}"# }
        defer { server.stop() }
        func token(_ subject: String, alg: String = "RS256", _ more: JSONObject = [:]) throws -> String {
            var claims = more
            claims["sub"] = .string(subject)
            return try provider.mint(claims: claims, alg: alg)
        }

        // Google-style RS256: the first log-in creates the user, the next logs in to it.
        let google = try client(server.url)
        let googleUser = try await google.logIn(with: .google(idToken: try token("g-1")))
        #expect(try await client(server.url).logIn(with: .google(idToken: try token("g-1"))).objectId == googleUser.objectId)
        await #expect(throws: GatehouseError.invalidProviderToken(provider: "google")) {
            try await client(server.url).logIn(with: .google(idToken: try token("g-1", ["aud": "another-app"])))
        }

        // Apple-style ES256 with a nonce, which must match.
        let appleToken = try token("a-1", alg: "ES256", ["nonce": "n-1"])
        let apple = try client(server.url)
        await #expect(throws: GatehouseError.invalidProviderToken(provider: "apple")) {
            try await apple.logIn(with: .apple(idToken: appleToken, nonce: "n-2"))
        }
        #expect(try await apple.logIn(with: .apple(idToken: appleToken, nonce: "n-1")).objectId != googleUser.objectId)

        // A password user links acme and logs in with it; nobody else can link it; unlinked, it
        // makes a new user.
        let alice = try client(server.url)
        let aliceUser = try await alice.signUp(username: "alice", password: "larch-ridge-11")
        try await alice.link(.oidc(provider: "acme", idToken: try token("acme-7")))
        #expect(try await client(server.url).logIn(with: .oidc(provider: "acme", idToken: try token("acme-7"))).objectId
            == aliceUser.objectId)
        await #expect(throws: GatehouseError.providerAlreadyLinked) {
            try await google.link(.oidc(provider: "acme", idToken: try token("acme-7")))
        }
        await #expect(throws: GatehouseError.lastLogInMethod) { try await google.unlink(provider: "google") }
        try await alice.unlink(provider: "acme")
        #expect(try await client(server.url).logIn(with: .oidc(provider: "acme", idToken: try token("acme-7"))).objectId
            != aliceUser.objectId)
    }

    @Test func theServerRefusesAProviderItDoesNotKnow() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let auth = try client(server.url)
        await #expect(throws: GatehouseError.unsupportedProvider) {
            try await auth.logIn(with: .oidc(provider: "nowhere", idToken: Self.token(#"{"sub":"1"}"#)))
        }
        #expect(auth.currentUser == nil)
    }
}
