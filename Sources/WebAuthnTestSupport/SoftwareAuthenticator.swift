public import Signatures
public import JSON
internal import Sodium
internal import WebAuthn

/// A passkey made by `SoftwareAuthenticator`: its private key, id, relying party, user handle
/// and signature counter.
public struct SoftwareCredential: Sendable {
    public let id: [UInt8]
    public let privateKey: PrivateKey
    public let rpId: String
    public let userHandle: [UInt8]
    /// The counter of the last assertion; each assertion adds `counterStep` (0: an
    /// authenticator that keeps no counter and always sends 0).
    public var signCount: UInt32
    public var counterStep: UInt32
}

/// A software WebAuthn authenticator and client for tests and benchmarks: it turns the
/// options JSON of `RelyingParty` into `RegistrationResponseJSON` and `AuthenticationResponseJSON`
/// as a browser would, signing with a `Signatures.PrivateKey`. `Variation` makes deliberately bad
/// responses, one fault at a time.
public struct SoftwareAuthenticator: Sendable {
    /// The origin the "browser" reports in `clientDataJSON`.
    public var origin: String
    /// Whether it verifies its user (PIN, biometrics) and sets the UV flag, in registrations and
    /// assertions; false: a security key that checks only presence (a touch).
    public var verifiesUser: Bool

    public init(origin: String, verifiesUser: Bool = true) {
        self.origin = origin
        self.verifiesUser = verifiesUser
    }

    /// What to get wrong; the default gets nothing wrong.
    public struct Variation: Sendable {
        /// `clientDataJSON.type` instead of the ceremony's.
        public var type: String?
        /// `clientDataJSON.origin` instead of the authenticator's.
        public var origin: String?
        /// `clientDataJSON.crossOrigin`.
        public var crossOrigin = false
        /// The relying party id whose hash goes into the authenticator data, instead of the options'.
        public var rpId: String?
        /// The challenge to sign instead of the options'.
        public var challenge: [UInt8]?
        /// Whether the UP flag is set.
        public var userPresent = true
        /// The counter to send instead of the credential's next one (the credential keeps it).
        public var signCount: UInt32?
        /// Flip a bit of the signature (or of the packed self-attestation signature).
        public var badSignature = false
        /// The user handle to send instead of the credential's; `omitUserHandle` sends none.
        public var userHandle: [UInt8]?
        public var omitUserHandle = false
        /// The credential id to claim instead of the credential's.
        public var credentialId: [UInt8]?
        /// A COSE key to send instead of the credential's: in a registration's attested credential
        /// data, and in an assertion as attested credential data with the AT flag, which WebAuthn
        /// never sends in one (a stranger's way to make the server parse a key).
        public var publicKey: [UInt8]?

        public init(
            type: String? = nil, origin: String? = nil, crossOrigin: Bool = false, rpId: String? = nil, challenge: [UInt8]? = nil,
            userPresent: Bool = true, signCount: UInt32? = nil, badSignature: Bool = false, userHandle: [UInt8]? = nil,
            omitUserHandle: Bool = false, credentialId: [UInt8]? = nil, publicKey: [UInt8]? = nil
        ) {
            self.type = type
            self.origin = origin
            self.crossOrigin = crossOrigin
            self.rpId = rpId
            self.challenge = challenge
            self.userPresent = userPresent
            self.signCount = signCount
            self.badSignature = badSignature
            self.userHandle = userHandle
            self.omitUserHandle = omitUserHandle
            self.credentialId = credentialId
            self.publicKey = publicKey
        }
    }

    /// Attestation statement formats the authenticator can produce.
    public enum Attestation: Sendable { case none, packedSelf }

    public enum Failure: Error, Sendable { case badOptions(String) }

    /// Creates a credential for `options` (PublicKeyCredentialCreationOptionsJSON) and returns it
    /// with the RegistrationResponseJSON a browser would send.
    public func register(
        options: JSON, key: PrivateKey.Kind = .p256, attestation: Attestation = .none, counterStep: UInt32 = 1,
        _ variation: Variation = Variation()
    ) throws -> (credential: SoftwareCredential, response: JSON) {
        guard let rpId = options["rp"]?["id"]?.stringValue else { throw Failure.badOptions("no rp.id") }
        guard let handleText = options["user"]?["id"]?.stringValue, let userHandle = Base64URL.decode(handleText) else {
            throw Failure.badOptions("no user.id")
        }
        let privateKey = try PrivateKey(generating: key)
        let credential = SoftwareCredential(
            id: SecureRandom.bytes(16), privateKey: privateKey, rpId: rpId, userHandle: userHandle, signCount: 0, counterStep: counterStep)
        let clientData = try clientDataJSON(type: "webauthn.create", options: options, variation)
        let publicKey = try variation.publicKey ?? COSEKey.encode(privateKey.publicNumbers())
        let attested = Self.attestedCredentialData(id: variation.credentialId ?? credential.id, publicKey: publicKey)
        let authData = authenticatorData(
            rpId: variation.rpId ?? rpId, flags: 0x40 | (variation.userPresent ? 0x01 : 0), signCount: variation.signCount ?? 0) + attested
        var statement = CBOR.map([])
        if attestation == .packedSelf {
            var signature = try privateKey.signSHA256(authData + SHA256.digest(clientData))
            if variation.badSignature { signature[signature.count / 2] ^= 0x01 }
            let alg = key == .p256 ? COSEKey.Algorithm.es256 : .rs256
            statement = .map([CBORPair(.text("alg"), .int(alg.rawValue)), CBORPair(.text("sig"), .bytes(signature))])
        }
        let object = CBOR.map([
            CBORPair(.text("fmt"), .text(attestation == .none ? "none" : "packed")),
            CBORPair(.text("attStmt"), statement),
            CBORPair(.text("authData"), .bytes(authData)),
        ])
        let response: JSON = [
            "id": .string(Base64URL.encode(credential.id)),
            "rawId": .string(Base64URL.encode(credential.id)),
            "type": "public-key",
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "attestationObject": .string(Base64URL.encode(object.encoded())),
                "transports": ["internal"],
            ],
            "clientExtensionResults": [:],
            "authenticatorAttachment": "platform",
        ]
        return (credential, response)
    }

    /// Signs an assertion for `options` (PublicKeyCredentialRequestOptionsJSON) with `credential`,
    /// advancing its counter, and returns the AuthenticationResponseJSON a browser would send.
    public func assert(options: JSON, credential: inout SoftwareCredential, _ variation: Variation = Variation()) throws -> JSON {
        credential.signCount &+= credential.counterStep
        let clientData = try clientDataJSON(type: "webauthn.get", options: options, variation)
        var authData = authenticatorData(
            rpId: variation.rpId ?? credential.rpId, flags: (variation.userPresent ? 0x05 : 0x04) | (variation.publicKey == nil ? 0 : 0x40),
            signCount: variation.signCount ?? credential.signCount)
        if let publicKey = variation.publicKey { authData += Self.attestedCredentialData(id: credential.id, publicKey: publicKey) }
        var signature = try credential.privateKey.signSHA256(authData + SHA256.digest(clientData))
        if variation.badSignature { signature[signature.count / 2] ^= 0x01 }
        let id = Base64URL.encode(variation.credentialId ?? credential.id)
        var response: JSONObject = [
            "clientDataJSON": .string(Base64URL.encode(clientData)),
            "authenticatorData": .string(Base64URL.encode(authData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if !variation.omitUserHandle {
            response["userHandle"] = .string(Base64URL.encode(variation.userHandle ?? credential.userHandle))
        }
        return [
            "id": .string(id), "rawId": .string(id), "type": "public-key", "response": .object(response),
            "clientExtensionResults": [:], "authenticatorAttachment": "platform",
        ]
    }

    private func clientDataJSON(type: String, options: JSON, _ variation: Variation) throws -> [UInt8] {
        guard let challengeText = options["challenge"]?.stringValue, let challenge = Base64URL.decode(challengeText) else {
            throw Failure.badOptions("no challenge")
        }
        let object: JSON = [
            "type": .string(variation.type ?? type),
            "challenge": .string(Base64URL.encode(variation.challenge ?? challenge)),
            "origin": .string(variation.origin ?? origin),
            "crossOrigin": .bool(variation.crossOrigin),
        ]
        return object.serialized()
    }

    /// Attested credential data (§6.5.1): a zero AAGUID, the id's length and the id, the COSE key.
    private static func attestedCredentialData(id: [UInt8], publicKey: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0, count: 16) + [UInt8(id.count >> 8), UInt8(id.count & 0xff)] + id + publicKey
    }

    private func authenticatorData(rpId: String, flags: UInt8, signCount: UInt32) -> [UInt8] {
        // UV as the authenticator does it (``verifiesUser``), whatever the ceremony asked.
        let userVerified: UInt8 = 0x04
        let flags = verifiesUser ? flags | userVerified : flags & ~userVerified
        return SHA256.digest(rpId.utf8) + [flags] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: signCount >> UInt32($0 * 8)) }
    }
}
