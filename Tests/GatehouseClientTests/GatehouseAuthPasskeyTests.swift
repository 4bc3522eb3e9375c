import Foundation
import GatehouseClient
import JSON
import ServerTestSupport
import TestSupport
import Testing
import WebAuthnTestSupport

/// Passkeys through GatehouseAuth against an in-process server, with the software
/// authenticator standing in for the platform: its JSON goes through the SDK's calls, and
/// through the SDK's builders from raw parts (as an app on Apple platforms makes it).
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthPasskeyTests {
    func client(_ server: InProcessServer) throws -> GatehouseAuth {
        try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: server.url), store: MemorySessionStore())
    }

    /// The SDK's JSON value as the authenticator's, and back, through JSON text.
    static func toAuthenticator(_ value: JSONValue) throws -> JSON { try JSONParser().parse(Array(try JSONEncoder().encode(value))) }
    static func toSDK(_ value: JSON) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(value.serialized())) }

    /// `credential`'s `key` (in `response` when `inResponse`) as bytes.
    static func bytes(_ credential: JSONValue, _ key: String, inResponse: Bool = true) throws -> Data {
        try #require((inResponse ? credential["response"]?[key] : credential[key])?.base64URLData, "\(key)")
    }

    /// A passkey registered, then removed: `passkey.added` and `passkey.removed` with its id and
    /// name, verified by the Standard Webhooks library.
    @Test func addingAndRemovingAPasskeyAreDelivered() async throws {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let receiver = try WebhookReceiver(secret: secret)
        let server = try InProcessServer {
            $0.webhooks = #"[{"url": "\#(receiver.url())", "secret": "\#(secret)", "events": ["passkey.added", "passkey.removed"]}]"#
        }
        defer { server.stop() }
        let authenticator = SoftwareAuthenticator(origin: server.localhostOrigin)
        let alice = try client(server)
        let user = try await alice.signUp(username: "alice", password: "larch-ridge-11")
        let options = try await alice.passkeyRegistrationOptions()
        let (_, response) = try authenticator.register(options: try Self.toAuthenticator(options))
        let passkey = try await alice.registerPasskey(credential: try Self.toSDK(response), name: "Laptop")
        try await alice.removePasskey(id: passkey.id)

        #expect(eventually(timeout: .seconds(60)) { receiver.requests().count >= 2 })
        let requests = receiver.requests()
        #expect(requests.allSatisfy { $0.verified }, "\(requests.map(\.error))")
        #expect(requests.map(\.type) == ["passkey.added", "passkey.removed"])
        // The API's id is the global id `Passkey:<objectId>` in base64; events carry the objectId.
        let global = String(decoding: try #require(Data(base64Encoded: passkey.id)), as: UTF8.self)
        let objectId = try #require(global.hasPrefix("Passkey:") ? String(global.dropFirst(8)) : nil, "\(global)")
        let expected: JSONObject = ["userId": .string(user.objectId), "passkeyId": .string(objectId), "name": "Laptop"]
        #expect(requests.map(\.data) == [expected, expected])
    }

    @Test func registerLogInListAndRemove() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let authenticator = SoftwareAuthenticator(origin: server.localhostOrigin)
        let alice = try client(server)
        let user = try await alice.signUp(username: "alice", password: "larch-ridge-11")

        let options = try await alice.passkeyRegistrationOptions()
        #expect(options["rp"]?["id"]?.string == "localhost")  // the default public URL of a loopback listener
        #expect(options["user"]?["name"]?.string == "alice")
        #expect(options["user"]?["id"]?.base64URLData == Data(user.objectId.utf8))
        #expect(options["challenge"]?.base64URLData?.count == 32)

        // Registered from the raw parts, as an app on Apple platforms has them.
        var (credential, response) = try authenticator.register(options: try Self.toAuthenticator(options))
        let registration = try Self.toSDK(response)
        let passkey = try await alice.registerPasskey(
            credential: .passkeyRegistration(
                credentialID: try Self.bytes(registration, "rawId", inResponse: false),
                clientDataJSON: try Self.bytes(registration, "clientDataJSON"),
                attestationObject: try Self.bytes(registration, "attestationObject")),
            name: "Laptop")
        #expect(passkey.name == "Laptop")
        #expect(passkey.lastUsedAt == nil)
        #expect(try await alice.passkeys() == [passkey])
        // Alice has a second factor now: her password's session may not add another.
        await #expect(throws: GatehouseError.secondFactorLogInRequired) {
            try await alice.registerPasskey(credential: registration, name: "Again")
        }

        // Log in with the username: the options name the credential.
        let bob = try client(server)
        let loginOptions = try await bob.passkeyLoginOptions(username: "alice")
        #expect(loginOptions["allowCredentials"]?.array?.compactMap { $0["id"]?.base64URLData } == [Data(credential.id)])
        let assertion = try Self.toSDK(try authenticator.assert(options: try Self.toAuthenticator(loginOptions), credential: &credential))
        let loggedIn = try await bob.logIn(
            passkeyCredential: .passkeyAssertion(
                credentialID: try Self.bytes(assertion, "rawId", inResponse: false),
                clientDataJSON: try Self.bytes(assertion, "clientDataJSON"),
                authenticatorData: try Self.bytes(assertion, "authenticatorData"), signature: try Self.bytes(assertion, "signature"),
                userHandle: try Self.bytes(assertion, "userHandle")))
        #expect(loggedIn.objectId == user.objectId)
        #expect(bob.currentUser == loggedIn)
        #expect(try await bob.sessions().first(where: \.isCurrent)?.factors == ["passkey"])
        #expect(try await alice.passkeys().first?.lastUsedAt != nil)
        await #expect(throws: GatehouseError.invalidPasskeyRegistration) {  // its challenge is used
            try await bob.registerPasskey(credential: registration, name: "Again")
        }

        // Without a username (discoverable), the authenticator's JSON unchanged.
        let anyOptions = try await client(server).passkeyLoginOptions()
        #expect(anyOptions["allowCredentials"]?.array == [])
        let carol = try client(server)
        try await carol.logIn(passkeyCredential: try Self.toSDK(try authenticator.assert(options: try Self.toAuthenticator(anyOptions), credential: &credential)))
        #expect(carol.currentUser?.username == "alice")

        await #expect(throws: GatehouseError.server(code: 101, message: "Object not found.")) {
            try await bob.removePasskey(id: "UGFzc2tleTpub3RoaW5n")
        }
        try await alice.removePasskey(id: passkey.id)
        #expect(try await alice.passkeys() == [])
        let after = try await client(server).passkeyLoginOptions()
        await #expect(throws: GatehouseError.invalidPasskey) {
            try await client(server).logIn(passkeyCredential: try Self.toSDK(try authenticator.assert(options: try Self.toAuthenticator(after), credential: &credential)))
        }
    }

    @Test func badAssertionsAreInvalidPasskeyAndStoreNothing() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let authenticator = SoftwareAuthenticator(origin: server.localhostOrigin)
        let alice = try client(server)
        try await alice.signUp(username: "alice", password: "larch-ridge-11")
        var (credential, response) = try authenticator.register(options: try Self.toAuthenticator(try await alice.passkeyRegistrationOptions()))
        try await alice.registerPasskey(credential: try Self.toSDK(response))

        let auth = try client(server)
        for variation in [
            SoftwareAuthenticator.Variation(badSignature: true), SoftwareAuthenticator.Variation(origin: "https://evil.example"),
        ] {
            let options = try Self.toAuthenticator(try await auth.passkeyLoginOptions(username: "alice"))
            let bad = try Self.toSDK(try authenticator.assert(options: options, credential: &credential, variation))
            await #expect(throws: GatehouseError.invalidPasskey) { try await auth.logIn(passkeyCredential: bad) }
        }
        // A good assertion, sent twice: the challenge works once.
        let good = try Self.toSDK(
            try authenticator.assert(options: try Self.toAuthenticator(try await auth.passkeyLoginOptions()), credential: &credential))
        try await auth.logIn(passkeyCredential: good)
        let other = try client(server)
        await #expect(throws: GatehouseError.invalidPasskey) { try await other.logIn(passkeyCredential: good) }
        #expect(other.currentUser == nil)
        await #expect(throws: GatehouseError.sessionInvalid) { try await other.passkeyRegistrationOptions() }
        await #expect(throws: GatehouseError.sessionInvalid) { try await other.passkeys() }
        #expect(GatehouseError.invalidPasskey.code == 101 && GatehouseError.invalidPasskeyRegistration.code == 142)
    }

    @Test(arguments: [
        ([UInt8](), ""), ([0xfb, 0xff], "-_8"), ([0x00], "AA"), ([0x01, 0x02, 0x03], "AQID"), (Array("passkey".utf8), "cGFzc2tleQ"),
    ])
    func base64URLBothWays(_ bytes: [UInt8], _ text: String) {
        #expect(JSONValue.base64URL(Data(bytes)) == .string(text))
        #expect(JSONValue.string(text).base64URLData == Data(bytes))
    }

    @Test(arguments: ["+_8", "/w", "a", "!!!!", "AA===", "A=A", "AAAAA"])
    func notBase64URL(_ text: String) {
        #expect(JSONValue.string(text).base64URLData == nil)
        #expect(JSONValue.bool(true).base64URLData == nil)
    }
}
