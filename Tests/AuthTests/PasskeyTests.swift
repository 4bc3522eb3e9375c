import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Synchronization
import TestSupport
import Testing
import WebAuthn
import WebAuthnTestSupport

/// Passkeys through the GraphQL API (contract: mfa.md, Passkeys), with the software
/// authenticator: registration, log-in, the list, removal, and every way a response can be
/// wrong answering the contract's single error.
@Suite struct PasskeyTests {
    /// Harness's default public URL is http://127.0.0.1:1337: the relying party id and origin.
    static let authenticator = SoftwareAuthenticator(origin: "http://127.0.0.1:1337")

    static let registrationOptions = """
        mutation { passkeyRegistrationOptions(input: {clientMutationId: "o"}) { options clientMutationId } }
        """
    static let register = """
        mutation R($input: RegisterPasskeyInput!) { registerPasskey(input: $input) { passkey { id objectId name createdAt lastUsedAt } } }
        """
    static let loginOptions = """
        mutation O($input: PasskeyLoginOptionsInput!) { passkeyLoginOptions(input: $input) { options } }
        """
    static let logIn = """
        mutation L($input: LogInWithPasskeyInput!) {
          logInWithPasskey(input: $input) { clientMutationId viewer { sessionToken user { objectId username } session { createdWith } } }
        }
        """
    static let passkeys = "query { viewer { passkeys { id objectId name createdAt lastUsedAt } } }"
    static let remove = """
        mutation X($input: RemovePasskeyInput!) { removePasskey(input: $input) { ok } }
        """

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code ?? 0) \($0.message)" } }

    /// Signs up `username` and returns its object id and session token.
    static func user(_ h: Harness, _ username: String) throws -> (id: String, token: String) {
        let viewer = try h.signedUp(username)
        return (try #require(viewer["user"]?["objectId"]?.stringValue), try #require(viewer["sessionToken"]?.stringValue))
    }

    static func registrationOptions(_ h: Harness, token: String) throws -> JSON {
        let result = h.graphql(registrationOptions, token: token)
        return try #require(result.data?["passkeyRegistrationOptions"]?["options"], "\(result.json)")
    }

    static func register(_ h: Harness, _ credential: JSON, name: String? = "Laptop", token: String) -> ExecutionResult {
        var input: JSONObject = ["credential": credential]
        if let name { input["name"] = .string(name) }
        return h.graphql(register, variables: ["input": .object(input)], token: token)
    }

    /// Registers a passkey for the user of `token` and returns the authenticator's credential.
    static func registered(_ h: Harness, token: String) throws -> SoftwareCredential {
        let (credential, response) = try authenticator.register(options: try registrationOptions(h, token: token))
        let result = register(h, response, token: token)
        #expect(result.errors.isEmpty, "\(result.json)")
        return credential
    }

    static func loginOptions(_ h: Harness, username: String?, address: String = "192.0.2.1") throws -> JSON {
        let input: JSONObject = username.map { ["username": .string($0)] } ?? [:]
        let result = h.graphql(loginOptions, variables: ["input": .object(input)], address: address)
        return try #require(result.data?["passkeyLoginOptions"]?["options"], "\(result.json)")
    }

    static func logIn(_ h: Harness, _ assertion: JSON, address: String = "192.0.2.1") -> ExecutionResult {
        h.graphql(logIn, variables: ["input": ["credential": assertion, "clientMutationId": "l"]], address: address)
    }

    /// Logs in as `username` with `credential` (no errors expected) and returns the session token:
    /// a session made with a second factor, which a user who has a passkey needs to register another.
    static func passkeySession(_ h: Harness, _ username: String, _ credential: inout SoftwareCredential) throws -> String {
        let result = logIn(h, try authenticator.assert(options: try loginOptions(h, username: username), credential: &credential))
        return try #require(result.data?["logInWithPasskey"]?["viewer"]?["sessionToken"]?.stringValue, "\(result.json)")
    }

    /// A passkey logs its owner in past a password lockout and leaves the lockout in place: the
    /// lockout counts password guesses, which a passkey does not end.
    @Test func aPasskeyLogsInPastAPasswordLockoutAndLeavesIt() throws {
        let h = try Harness(configuration: LogInLimitTests.configuration(
            perAccount: 0, lockout: LockoutPolicy(threshold: 3, durationMinutes: 5)))
        let alice = try Self.user(h, "alice")
        var credential = try Self.registered(h, token: alice.token)
        for _ in 0..<3 { #expect(LogInLimitTests.outcome(h.logIn("alice", "wrong")) == 101) }
        #expect(try eventually { try h.count("SELECT count(*) FROM users WHERE lockout_until IS NOT NULL") == 1 })
        let result = Self.logIn(h, try Self.authenticator.assert(options: try Self.loginOptions(h, username: "alice"), credential: &credential))
        #expect(result.data?["logInWithPasskey"]?["viewer"]?["user"]?["objectId"]?.stringValue == alice.id, "\(result.json)")
        #expect(onlyError(h.logIn("alice", Harness.password))?.message == LogInLimitTests.lockedMessage)
    }

    @Test func registerListAndLogIn() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        let options = try Self.registrationOptions(h, token: alice.token)
        #expect(options["rp"] == ["id": "127.0.0.1", "name": "Gatehouse"])
        #expect(options["user"] == ["id": .string(Base64URL.encode(Array(alice.id.utf8))), "name": "alice", "displayName": "alice"])
        #expect(options["excludeCredentials"] == [])
        #expect(Base64URL.decode(options["challenge"]?.stringValue ?? "")?.count == 32)
        let (credential, response) = try Self.authenticator.register(options: options)
        let registered = Self.register(h, response, token: alice.token)
        let passkey = try #require(registered.data?["registerPasskey"]?["passkey"], "\(registered.json)")
        #expect(passkey["name"] == "Laptop" && passkey["lastUsedAt"] == .null)
        #expect(try h.count("SELECT count(*)::int FROM webauthn_challenges") == 0)

        var authenticator = credential
        let loginOptions = try Self.loginOptions(h, username: "ALICE")
        #expect(loginOptions["allowCredentials"] == [["type": "public-key", "id": .string(Base64URL.encode(credential.id))]])
        #expect(loginOptions["rpId"] == "127.0.0.1")
        let result = Self.logIn(h, try Self.authenticator.assert(options: loginOptions, credential: &authenticator))
        let viewer = try #require(result.data?["logInWithPasskey"]?["viewer"], "\(result.json)")
        #expect(viewer["user"]?["objectId"]?.stringValue == alice.id)
        #expect(viewer["session"]?["createdWith"] == ["action": "login", "authProvider": "passkey", "factors": ["passkey"]])
        #expect(result.data?["logInWithPasskey"]?["clientMutationId"] == "l")

        let session = try #require(viewer["sessionToken"]?.stringValue)
        let listed = h.graphql(Self.passkeys, token: session)
        let list = try #require(listed.data?["viewer"]?["passkeys"]?.arrayValue, "\(listed.json)")
        #expect(list.count == 1 && list[0]["objectId"] == passkey["objectId"] && list[0]["lastUsedAt"] != .null)
        #expect(try h.count("SELECT sign_count::int FROM passkeys") == 1)
        // The next registration options (from the passkey's session) exclude it.
        #expect(try Self.registrationOptions(h, token: session)["excludeCredentials"]
            == [["type": "public-key", "id": .string(Base64URL.encode(credential.id))]])
    }

    @Test func discoverableLogInWithoutAUsername() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        var credential = try Self.registered(h, token: alice.token)
        let options = try Self.loginOptions(h, username: nil)
        #expect(options["allowCredentials"] == [])
        let result = Self.logIn(h, try Self.authenticator.assert(options: options, credential: &credential))
        #expect(result.data?["logInWithPasskey"]?["viewer"]?["user"]?["objectId"]?.stringValue == alice.id, "\(result.json)")
        // Without a username the user handle is required.
        let again = try Self.loginOptions(h, username: nil)
        #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: again, credential: &credential, .init(omitUserHandle: true))))
            == "101 Invalid passkey.")
    }

    @Test func unknownNamesGetOptionsOfTheSameShape() throws {
        let h = try Harness()
        _ = try Self.user(h, "alice")
        let unknown = try Self.loginOptions(h, username: "nobody")
        let known = try Self.loginOptions(h, username: "alice")  // a user without passkeys
        for options in [unknown, known] {
            let ids = try #require(options["allowCredentials"]?.arrayValue)
            #expect(ids.count == 1 && Base64URL.decode(ids[0]["id"]?.stringValue ?? "")?.count == 16)
            #expect(options.objectValue?.keys == ["challenge", "timeout", "rpId", "allowCredentials", "userVerification"])
        }
        // Stable per name, different between names.
        #expect(try Self.loginOptions(h, username: "nobody")["allowCredentials"] == unknown["allowCredentials"])
        #expect(unknown["allowCredentials"] != known["allowCredentials"])
    }

    @Test func expiredChallengesAreDeletedByLaterOnes() throws {
        let h = try Harness()
        for _ in 0..<3 { _ = try Self.loginOptions(h, username: nil) }
        #expect(try h.count("SELECT count(*)::int FROM webauthn_challenges") == 3)
        h.clock.advance(by: 301)
        _ = try Self.loginOptions(h, username: nil)
        #expect(try h.count("SELECT count(*)::int FROM webauthn_challenges") == 1)
        // Only digests are stored, never a challenge itself.
        #expect(try h.count("SELECT count(*)::int FROM webauthn_challenges WHERE length(digest) = 32") == 1)
    }

    @Test func registrationRefusals() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        let bob = try Self.user(h, "bob")
        let invalid = "142 Invalid passkey registration."
        let cases: [SoftwareAuthenticator.Variation] = [
            .init(type: "webauthn.get"), .init(origin: "https://evil.example"), .init(rpId: "evil.example"),
            .init(userPresent: false), .init(challenge: Array(repeating: 1, count: 32)),
        ]
        for variation in cases {
            let (_, response) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: alice.token), variation)
            #expect(Self.error(Self.register(h, response, token: alice.token)) == invalid, "\(variation)")
        }
        // Another user's challenge.
        let (_, bobs) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: bob.token))
        #expect(Self.error(Self.register(h, bobs, token: alice.token)) == invalid)
        // A challenge is used once, even by its own user (in a session made with the new passkey,
        // which a user who has one needs to register another).
        let (registered, response) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: alice.token))
        var credential = registered
        #expect(Self.register(h, response, token: alice.token).errors.isEmpty)
        let withPasskey = try Self.passkeySession(h, "alice", &credential)
        #expect(Self.error(Self.register(h, response, token: withPasskey)) == invalid)
        // An expired challenge.
        let (_, late) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: withPasskey))
        h.clock.advance(by: 301)
        let fresh = try Self.passkeySession(h, "alice", &credential)
        #expect(Self.error(Self.register(h, late, token: fresh)) == invalid)
        // Not JSON of a credential at all.
        #expect(Self.error(Self.register(h, ["not": "a credential"], token: fresh)) == invalid)
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
        #expect(h.capturedLogs.contains { $0.contains("Origin \"https://evil.example\" is not allowed.") })
    }

    /// A stranger's 16384-bit RSA key makes libcrypto do nothing: under a challenge never given
    /// out it is refused as such, in a registration and in a log-in; under a real challenge a
    /// registration refuses it for its size, and a log-in for carrying a key at all (the AT flag),
    /// building only the stored passkey's key.
    @Test func aHugeRSAKeyIsRefusedWithoutKeyWork() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        var credential = try Self.registered(h, token: alice.token)
        let huge = KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: 16384))
        let unknownChallenge = [UInt8](repeating: 3, count: 32)

        // A second passkey is added from a session made with the first (a second factor).
        let withPasskey = try Self.passkeySession(h, "alice", &credential)
        let options = try Self.registrationOptions(h, token: withPasskey)
        let (_, forged) = try Self.authenticator.register(options: options, .init(challenge: unknownChallenge, publicKey: huge))
        let (_, real) = try Self.authenticator.register(options: options, .init(publicKey: huge))
        var errors: [String?] = []
        let registrationWork = KeyWork.during {
            errors.append(Self.error(Self.register(h, forged, token: withPasskey)))
            errors.append(Self.error(Self.register(h, real, token: withPasskey)))
        }
        #expect(errors == ["142 Invalid passkey registration.", "142 Invalid passkey registration."])
        #expect(registrationWork.isEmpty)
        let refusals = h.capturedLogs.filter { $0.contains("passkey registration refused") }
        #expect(refusals.count == 2 && refusals[0].contains("the challenge was not given to this user"), "\(refusals)")
        #expect(refusals.last?.contains("an RSA modulus of 16384 bits (2048 to 4096 accepted)") == true, "\(refusals)")

        let loginOptions = try Self.loginOptions(h, username: "alice")
        let forgedAssertion = try Self.authenticator.assert(options: loginOptions, credential: &credential, .init(challenge: unknownChallenge, publicKey: huge))
        let forgedWork = KeyWork.during { errors = [Self.error(Self.logIn(h, forgedAssertion))] }
        #expect(errors == ["101 Invalid passkey."])
        #expect(forgedWork.isEmpty)
        let realAssertion = try Self.authenticator.assert(options: loginOptions, credential: &credential, .init(publicKey: huge))
        let realWork = KeyWork.during { errors = [Self.error(Self.logIn(h, realAssertion))] }
        #expect(errors == ["101 Invalid passkey."])
        #expect(realWork == [.built])
        let logIns = h.capturedLogs.filter { $0.contains("passkey log-in refused") }
        #expect(logIns.count == 2 && logIns[0].contains("the challenge was not given out"), "\(logIns)")
        #expect(logIns.last?.contains("the AT flag (attested credential data) in an assertion") == true, "\(logIns)")
    }

    @Test func aCredentialIdIsRegisteredOnce() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        let (registered, first) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: alice.token))
        var credential = registered
        #expect(Self.register(h, first, token: alice.token).errors.isEmpty)
        let withPasskey = try Self.passkeySession(h, "alice", &credential)
        let (_, second) = try Self.authenticator.register(options: try Self.registrationOptions(h, token: withPasskey))
        // The first response's credential (attestation `none`: nothing signed) under the second's challenge.
        guard case .object(var replay) = first, case .object(var response)? = replay["response"] else { return }
        response["clientDataJSON"] = second["response"]?["clientDataJSON"]
        replay["response"] = .object(response)
        #expect(Self.error(Self.register(h, .object(replay), token: withPasskey)) == "142 Invalid passkey registration.")
        #expect(h.capturedLogs.contains { $0.contains("the credential id is registered already") })
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
    }

    @Test func registrationNeedsASessionAndRecentAuthentication() throws {
        let h = try Harness()
        #expect(Self.error(h.graphql(Self.registrationOptions)) == "209 Invalid session token")
        let alice = try Self.user(h, "alice")
        h.clock.advance(by: 301)
        #expect(Self.error(h.graphql(Self.registrationOptions, token: alice.token)) == "206 Recent authentication required.")
    }

    @Test func logInRefusals() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        let bob = try Self.user(h, "bob")
        let original = try Self.registered(h, token: alice.token)
        var bobsCredential = try Self.registered(h, token: bob.token)
        let invalid = "101 Invalid passkey."
        let cases: [SoftwareAuthenticator.Variation] = [
            .init(type: "webauthn.create"), .init(origin: "https://evil.example"), .init(rpId: "evil.example"),
            .init(userPresent: false), .init(badSignature: true), .init(challenge: Array(repeating: 2, count: 32)),
            .init(userHandle: Array(bob.id.utf8)), .init(credentialId: bobsCredential.id),
        ]
        var credential = original
        for variation in cases {
            let options = try Self.loginOptions(h, username: "alice")
            #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: options, credential: &credential, variation))) == invalid,
                    "\(variation)")
        }
        // Bob's passkey against options for alice.
        let forAlice = try Self.loginOptions(h, username: "alice")
        #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: forAlice, credential: &bobsCredential))) == invalid)
        // A replayed assertion (its challenge is used).
        let options = try Self.loginOptions(h, username: "alice")
        let assertion = try Self.authenticator.assert(options: options, credential: &credential)
        #expect(Self.logIn(h, assertion).errors.isEmpty)
        #expect(Self.error(Self.logIn(h, assertion)) == invalid)
        // A refused assertion uses its challenge up too: a good one over it is refused after.
        let once = try Self.loginOptions(h, username: "alice")
        #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: once, credential: &credential, .init(badSignature: true)))) == invalid)
        #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: once, credential: &credential))) == invalid)
        // An expired challenge.
        let expiring = try Self.loginOptions(h, username: "alice")
        let late = try Self.authenticator.assert(options: expiring, credential: &credential)
        h.clock.advance(by: 301)
        #expect(Self.error(Self.logIn(h, late)) == invalid)
        // Still usable after all of these.
        let good = try Self.authenticator.assert(options: try Self.loginOptions(h, username: "alice"), credential: &credential)
        #expect(Self.logIn(h, good).errors.isEmpty)
    }

    @Test func concurrentLogInsWithOneAssertionLetExactlyOneIn() throws {
        let h = try Harness(poolSize: 8)
        let alice = try Self.user(h, "alice")
        var credential = try Self.registered(h, token: alice.token)
        let assertion = try Self.authenticator.assert(options: try Self.loginOptions(h, username: "alice"), credential: &credential)
        let outcomes = Mutex<[String?]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let result = Self.logIn(h, assertion)
            outcomes.withLock { $0.append(result.errors.isEmpty ? nil : Self.error(result)) }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.filter { $0 == nil }.count == 1, "\(all)")
        #expect(all.compactMap { $0 }.allSatisfy { $0 == "101 Invalid passkey." }, "\(all)")
    }

    @Test func aCounterGoingBackwardsDisablesThePasskey() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        var credential = try Self.registered(h, token: alice.token)
        for _ in 0..<2 {
            #expect(Self.logIn(h, try Self.authenticator.assert(options: try Self.loginOptions(h, username: "alice"), credential: &credential)).errors.isEmpty)
        }
        var clone = credential
        clone.signCount = 0
        let cloned = try Self.authenticator.assert(options: try Self.loginOptions(h, username: "alice"), credential: &clone)
        #expect(Self.error(Self.logIn(h, cloned)) == "101 Invalid passkey.")
        #expect(h.capturedLogs.contains { $0.contains("disabled as possibly cloned") })
        // The genuine authenticator is refused too now, and the name's options no longer list it.
        let options = try Self.loginOptions(h, username: "alice")
        #expect(options["allowCredentials"] != [["type": "public-key", "id": .string(Base64URL.encode(credential.id))]])
        #expect(Self.error(Self.logIn(h, try Self.authenticator.assert(options: options, credential: &credential))) == "101 Invalid passkey.")
    }

    @Test func logInAttemptsCountAgainstTheAddressLimit() throws {
        let h = try Harness(configuration: AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 4), masterKey: Harness.masterKey))
        let address = "198.51.100.7"
        _ = try Self.loginOptions(h, username: "alice", address: address)
        for _ in 0..<3 {
            #expect(Self.error(Self.logIn(h, ["not": "a credential"], address: address)) == "101 Invalid passkey.")
        }
        #expect(onlyError(Self.logIn(h, ["not": "a credential"], address: address))?.code == 155)
    }

    @Test func removePasskey() throws {
        let h = try Harness()
        let alice = try Self.user(h, "alice")
        let bob = try Self.user(h, "bob")
        _ = try Self.registered(h, token: alice.token)
        let list = h.graphql(Self.passkeys, token: alice.token).data?["viewer"]?["passkeys"]?.arrayValue ?? []
        let id = try #require(list.first?["id"]?.stringValue)
        #expect(Self.error(h.graphql(Self.remove, variables: ["input": ["id": .string(id)]], token: bob.token)) == "101 Object not found.")
        let removed = h.graphql(Self.remove, variables: ["input": ["id": .string(id)]], token: alice.token)
        #expect(removed.data?["removePasskey"]?["ok"] == true, "\(removed.json)")
        #expect(h.graphql(Self.passkeys, token: alice.token).data?["viewer"]?["passkeys"] == [])
        #expect(Self.error(h.graphql(Self.remove, variables: ["input": ["id": .string(id)]], token: alice.token)) == "101 Object not found.")
    }

    @Test func theLastWayToLogInCannotBeRemoved() throws {
        let h = try Harness()
        // A guest has no password and only an anonymous id: the passkey is its one way back.
        let guest = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]])
        let token = try #require(guest.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue)
        _ = try Self.registered(h, token: token)
        let id = try #require(h.graphql(Self.passkeys, token: token).data?["viewer"]?["passkeys"]?[0]?["objectId"]?.stringValue)
        #expect(Self.error(h.graphql(Self.remove, variables: ["input": ["id": .string(id)]], token: token))
            == "142 The last way to log in cannot be removed.")
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
    }
}
