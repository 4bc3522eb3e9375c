public import JSON
internal import Signatures
internal import Sodium

/// The relying party (WebAuthn §5.1.2 and §7): builds the options JSON the browser passes to
/// `navigator.credentials.create/get` and verifies what comes back (§7.1 registration, §7.2
/// authentication). It keeps no state: the service stores challenges and credentials.
public struct RelyingParty: Sendable {
    /// The relying party id: a registrable domain (the host the passkeys are scoped to).
    public let id: String
    /// The name shown by the authenticator.
    public let name: String
    /// The origins ceremonies may run on (`https://host[:port]`, app origins such as `android:apk-key-hash:…`).
    public let origins: Set<String>
    /// How long a challenge is valid, in milliseconds (also the options' `timeout`).
    public static let challengeLifetimeMilliseconds = 300_000
    /// Bytes of a fresh challenge.
    public static let challengeLength = 32

    private let idHash: [UInt8]

    public init(id: String, name: String, origins: Set<String>) {
        self.id = id
        self.name = name
        self.origins = origins
        idHash = SHA256.digest(id.utf8)
    }

    /// A fresh random challenge.
    public static func newChallenge() -> [UInt8] { SecureRandom.bytes(challengeLength) }

    /// `PublicKeyCredentialCreationOptionsJSON` for registering a passkey of the user whose
    /// handle is `userHandle`, excluding the credential ids the user already has.
    public func registrationOptions(
        challenge: [UInt8], userHandle: [UInt8], userName: String, displayName: String, excludeCredentials: [[UInt8]]
    ) -> JSON {
        [
            "rp": ["id": .string(id), "name": .string(name)],
            "user": ["id": .string(Base64URL.encode(userHandle)), "name": .string(userName), "displayName": .string(displayName)],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(COSEKey.Algorithm.allCases.map { ["type": "public-key", "alg": .int($0.rawValue)] }),
            "timeout": .int(Self.challengeLifetimeMilliseconds),
            "excludeCredentials": Self.descriptors(excludeCredentials),
            "authenticatorSelection": ["residentKey": "required", "userVerification": "preferred"],
            "attestation": "none",
        ]
    }

    /// `PublicKeyCredentialRequestOptionsJSON` for logging in; `allowCredentials` empty for
    /// discoverable credentials (no user named).
    public func authenticationOptions(challenge: [UInt8], allowCredentials: [[UInt8]]) -> JSON {
        [
            "challenge": .string(Base64URL.encode(challenge)),
            "timeout": .int(Self.challengeLifetimeMilliseconds),
            "rpId": .string(id),
            "allowCredentials": Self.descriptors(allowCredentials),
            "userVerification": "preferred",
        ]
    }

    private static func descriptors(_ ids: [[UInt8]]) -> JSON {
        .array(ids.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] })
    }

    /// A credential that passed registration, to be stored.
    public struct RegisteredCredential: Sendable {
        public let credentialId: [UInt8]
        public let publicKey: COSEKey
        public let signCount: UInt32
        /// The UV flag: the authenticator verified its user (PIN, biometrics) when it made the credential.
        public let userVerified: Bool
    }

    /// Verifies a registration (§7.1 steps 7-24, without trust-anchor checks): type
    /// `webauthn.create`, `expectedChallenge`, an allowed origin, not cross-origin (all before the
    /// attestation object is parsed), rpIdHash, user present, attested credential data whose id
    /// is the response's, and the attestation statement (`none`: empty; `packed` without `x5c`: a
    /// self signature by the new key; other formats and `packed` with a certificate chain are
    /// accepted without verifying the statement, since attestation `none` is requested and no
    /// trust anchors are kept).
    public func verify(_ response: RegistrationResponse, expectedChallenge: [UInt8]) throws(WebAuthnError) -> RegisteredCredential {
        try checkClientData(response.clientData, type: "webauthn.create", expectedChallenge: expectedChallenge)
        let attestation = try response.attestation()
        let authenticatorData = attestation.authenticatorData
        try checkAuthenticatorData(authenticatorData)
        guard let credential = authenticatorData.attestedCredential else {
            throw WebAuthnError.credentialMismatch("no attested credential data")
        }
        guard credential.credentialId == response.credentialId else {
            throw WebAuthnError.credentialMismatch("the attested credential id differs from rawId")
        }
        switch attestation.format {
        case "none":
            guard attestation.statement == .map([]) else { throw WebAuthnError.invalidAttestation("a none attestation with a statement") }
        case "packed":
            if attestation.statement[text: "x5c"] == nil {
                guard attestation.statement[text: "alg"]?.intValue == credential.publicKey.algorithm.rawValue else {
                    throw WebAuthnError.invalidAttestation("packed self attestation with another algorithm than the key's")
                }
                guard case .bytes(let signature)? = attestation.statement[text: "sig"],
                    credential.publicKey.verify(signature: signature, message: authenticatorData.bytes + SHA256.digest(response.clientData.bytes))
                else { throw WebAuthnError.invalidAttestation("packed self signature does not verify") }
            }
        default:
            break
        }
        return RegisteredCredential(
            credentialId: credential.credentialId, publicKey: credential.publicKey, signCount: authenticatorData.signCount,
            userVerified: authenticatorData.flags.contains(.userVerified))
    }

    /// What the service stored for a passkey, as the authentication check needs it.
    public struct StoredCredential: Sendable {
        public let publicKey: COSEKey
        public let signCount: UInt32
        /// The owner's user handle.
        public let userHandle: [UInt8]

        public init(publicKey: COSEKey, signCount: UInt32, userHandle: [UInt8]) {
            self.publicKey = publicKey
            self.signCount = signCount
            self.userHandle = userHandle
        }
    }

    /// What a verified assertion proved.
    public struct VerifiedAssertion: Sendable, Hashable {
        /// The counter to store.
        public let signCount: UInt32
        /// The UV flag: the authenticator verified its user (PIN, biometrics), not only their
        /// presence. Without it the assertion proves possession of the authenticator alone.
        public let userVerified: Bool

        public init(signCount: UInt32, userVerified: Bool) {
            self.signCount = signCount
            self.userVerified = userVerified
        }
    }

    /// Verifies an assertion (§7.2 steps 5-21) made with `credential` (found by the response's
    /// credential id): type `webauthn.get`, `expectedChallenge`, an allowed origin, not
    /// cross-origin (all before the authenticator data is parsed), authenticator data without
    /// attested credential data, rpIdHash, user present, the signature over
    /// `authenticatorData ‖ SHA-256(clientDataJSON)`, the user handle (when the response carries
    /// one it must be the owner's; `userHandleRequired` when the options named no user), and
    /// last the counter: when the received or the stored counter is non-zero, the received one
    /// must be greater (`counterNotIncreased` means a possible clone; it is thrown only for a
    /// valid signature). Returns the counter to store and whether the user was verified (UV is
    /// reported, not required: the options ask for it as `preferred`).
    public func verify(
        _ response: AuthenticationResponse, expectedChallenge: [UInt8], credential: StoredCredential, userHandleRequired: Bool
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try checkClientData(response.clientData, type: "webauthn.get", expectedChallenge: expectedChallenge)
        let authenticatorData = try response.authenticatorData()
        try checkAuthenticatorData(authenticatorData)
        let signed = authenticatorData.bytes + SHA256.digest(response.clientData.bytes)
        guard credential.publicKey.verify(signature: response.signature, message: signed) else { throw WebAuthnError.badSignature }
        if let handle = response.userHandle {
            guard handle == credential.userHandle else { throw WebAuthnError.userHandleMismatch }
        } else if userHandleRequired {
            throw WebAuthnError.userHandleMismatch
        }
        let received = authenticatorData.signCount
        if received != 0 || credential.signCount != 0 {
            guard received > credential.signCount else {
                throw WebAuthnError.counterNotIncreased(stored: credential.signCount, received: received)
            }
        }
        return VerifiedAssertion(signCount: received, userVerified: authenticatorData.flags.contains(.userVerified))
    }

    private func checkClientData(_ clientData: ClientData, type: String, expectedChallenge: [UInt8]) throws(WebAuthnError) {
        // The client's text, quoted in logs: cut by bytes, which bounds it whatever its characters.
        guard clientData.type == type else { throw WebAuthnError.wrongType(clientData.type.utf8Prefix(64)) }
        guard clientData.challenge == expectedChallenge else { throw WebAuthnError.challengeMismatch }
        guard origins.contains(clientData.origin) else { throw WebAuthnError.originNotAllowed(clientData.origin.utf8Prefix(200)) }
        guard !clientData.crossOrigin else { throw WebAuthnError.crossOrigin }
    }

    private func checkAuthenticatorData(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard data.rpIdHash == idHash else { throw WebAuthnError.rpIdHashMismatch }
        guard data.flags.contains(.userPresent) else { throw WebAuthnError.userNotPresent }
    }
}
