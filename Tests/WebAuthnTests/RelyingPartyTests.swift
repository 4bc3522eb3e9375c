import Signatures
import JSON
import Testing
import WebAuthn
import WebAuthnTestSupport

/// The registration (§7.1) and authentication (§7.2) checks against the software
/// authenticator: good responses pass, and each way a response can be wrong is refused with
/// its own reason.
struct RelyingPartyTests {
    private let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com", "https://app.example.com"])
    private let authenticator = SoftwareAuthenticator(origin: "https://example.com")
    private let userHandle = Array("u1234567".utf8)

    private func registrationOptions(_ challenge: [UInt8]) -> JSON {
        rp.registrationOptions(challenge: challenge, userHandle: userHandle, userName: "ada", displayName: "Ada", excludeCredentials: [[9, 9]])
    }

    /// A registered credential and what the server would have stored for it.
    private func registered(_ kind: PrivateKey.Kind = .p256, counterStep: UInt32 = 1) throws -> (SoftwareCredential, RelyingParty.StoredCredential) {
        let challenge = RelyingParty.newChallenge()
        let (credential, json) = try authenticator.register(options: registrationOptions(challenge), key: kind, counterStep: counterStep)
        let result = try rp.verify(RegistrationResponse(json: json), expectedChallenge: challenge)
        return (credential, .init(publicKey: result.publicKey, signCount: result.signCount, userHandle: userHandle))
    }

    private func register(_ variation: SoftwareAuthenticator.Variation, attestation: SoftwareAuthenticator.Attestation = .none) throws {
        let challenge = RelyingParty.newChallenge()
        let (_, json) = try authenticator.register(options: registrationOptions(challenge), attestation: attestation, variation)
        _ = try rp.verify(RegistrationResponse(json: json), expectedChallenge: challenge)
    }

    @Test func registrationOptionsHaveTheContractsShape() throws {
        let challenge = [UInt8](repeating: 1, count: 32)
        let options = registrationOptions(challenge)
        #expect(options["rp"] == ["id": "example.com", "name": "Example"])
        #expect(options["user"] == ["id": .string(Base64URL.encode(userHandle)), "name": "ada", "displayName": "Ada"])
        #expect(options["challenge"]?.stringValue == Base64URL.encode(challenge))
        #expect(options["pubKeyCredParams"] == [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]])
        #expect(options["authenticatorSelection"] == ["residentKey": "required", "userVerification": "preferred"])
        #expect(options["excludeCredentials"] == [["type": "public-key", "id": "CQk"]])
        #expect(options["attestation"] == "none")
        #expect(options["timeout"] == 300_000)
    }

    @Test func authenticationOptionsHaveTheContractsShape() {
        let options = rp.authenticationOptions(challenge: [2, 2], allowCredentials: [[1], [2]])
        #expect(options == [
            "challenge": "AgI", "timeout": 300_000, "rpId": "example.com",
            "allowCredentials": [["type": "public-key", "id": "AQ"], ["type": "public-key", "id": "Ag"]], "userVerification": "preferred",
        ])
        #expect(rp.authenticationOptions(challenge: [2, 2], allowCredentials: [])["allowCredentials"] == [])
        #expect(RelyingParty.newChallenge().count == 32 && RelyingParty.newChallenge() != RelyingParty.newChallenge())
    }

    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048], [SoftwareAuthenticator.Attestation.none, .packedSelf])
    func registrationPasses(kind: PrivateKey.Kind, attestation: SoftwareAuthenticator.Attestation) throws {
        let challenge = RelyingParty.newChallenge()
        let (credential, json) = try authenticator.register(options: registrationOptions(challenge), key: kind, attestation: attestation)
        let response = try RegistrationResponse(json: json)
        #expect(response.clientData.challenge == challenge)
        #expect(response.credentialId == credential.id)
        let result = try rp.verify(response, expectedChallenge: challenge)
        #expect(result.credentialId == credential.id)
        #expect(result.publicKey.algorithm == (kind == .p256 ? .es256 : .rs256))
        #expect(result.signCount == 0)
    }

    @Test func registrationFromAnotherAllowedOriginPasses() throws {
        #expect(throws: Never.self) { try register(.init(origin: "https://app.example.com")) }
    }

    @Test func registrationRefusals() throws {
        let cases: [(SoftwareAuthenticator.Variation, SoftwareAuthenticator.Attestation, WebAuthnError)] = [
            (.init(type: "webauthn.get"), .none, .wrongType("webauthn.get")),
            (.init(challenge: [1, 2, 3]), .none, .challengeMismatch),
            (.init(origin: "https://evil.example"), .none, .originNotAllowed("https://evil.example")),
            (.init(origin: "http://example.com"), .none, .originNotAllowed("http://example.com")),
            (.init(crossOrigin: true), .none, .crossOrigin),
            (.init(rpId: "evil.example"), .none, .rpIdHashMismatch),
            (.init(userPresent: false), .none, .userNotPresent),
            (.init(credentialId: [1, 2, 3]), .none, .credentialMismatch("the attested credential id differs from rawId")),
            (.init(badSignature: true), .packedSelf, .invalidAttestation("packed self signature does not verify")),
        ]
        for (variation, attestation, expected) in cases {
            #expect(throws: expected) { try register(variation, attestation: attestation) }
        }
    }

    /// The client's type and origin are quoted in refusals cut to 64 and 200 UTF-8 bytes, however
    /// few Characters that is.
    @Test func refusalsQuoteTheClientsTextCutByBytes() throws {
        let marks = String(repeating: "\u{301}", count: 3000)
        let cases: [(SoftwareAuthenticator.Variation, WebAuthnError)] = [
            (.init(type: "t" + marks), .wrongType("t" + String(repeating: "\u{301}", count: 31))),
            (.init(origin: "o" + marks), .originNotAllowed("o" + String(repeating: "\u{301}", count: 99))),
        ]
        for (variation, expected) in cases {
            #expect(throws: expected) { try register(variation) }
        }
    }

    @Test func registrationWithAnotherChallengeIsRefused() throws {
        let (_, json) = try authenticator.register(options: registrationOptions(RelyingParty.newChallenge()))
        #expect(throws: WebAuthnError.challengeMismatch) {
            try rp.verify(RegistrationResponse(json: json), expectedChallenge: RelyingParty.newChallenge())
        }
    }

    /// Rewrites the attestation object of a registration response.
    private func withAttestationObject(_ json: JSON, _ change: (inout [CBORPair]) -> Void) throws -> JSON {
        guard case .object(var object) = json, case .object(var response)? = object["response"],
            let bytes = Base64URL.decode(response["attestationObject"]?.stringValue ?? ""),
            case .map(var pairs) = try CBORDecoder().decode(bytes)
        else { throw WebAuthnError.malformedResponse("test setup") }
        change(&pairs)
        response["attestationObject"] = .string(Base64URL.encode(CBOR.map(pairs).encoded()))
        object["response"] = .object(response)
        return .object(object)
    }

    @Test func attestationStatements() throws {
        let challenge = RelyingParty.newChallenge()
        let (_, json) = try authenticator.register(options: registrationOptions(challenge))
        let noneWithStatement = try withAttestationObject(json) { $0[1].value = .map([CBORPair(.text("sig"), .bytes([1]))]) }
        #expect(throws: WebAuthnError.invalidAttestation("a none attestation with a statement")) {
            try rp.verify(RegistrationResponse(json: noneWithStatement), expectedChallenge: challenge)
        }
        let packedWrongAlg = try withAttestationObject(json) {
            $0[0].value = .text("packed")
            $0[1].value = .map([CBORPair(.text("alg"), .int(-257)), CBORPair(.text("sig"), .bytes([1]))])
        }
        #expect(throws: WebAuthnError.invalidAttestation("packed self attestation with another algorithm than the key's")) {
            try rp.verify(RegistrationResponse(json: packedWrongAlg), expectedChallenge: challenge)
        }
        // Full packed attestation and other formats: accepted without verifying the statement.
        let packedWithChain = try withAttestationObject(json) {
            $0[0].value = .text("packed")
            $0[1].value = .map([CBORPair(.text("alg"), .int(-7)), CBORPair(.text("sig"), .bytes([1])), CBORPair(.text("x5c"), .array([.bytes([2])]))])
        }
        #expect(throws: Never.self) { try rp.verify(RegistrationResponse(json: packedWithChain), expectedChallenge: challenge) }
        let tpm = try withAttestationObject(json) {
            $0[0].value = .text("tpm")
            $0[1].value = .map([CBORPair(.text("ver"), .text("2.0"))])
        }
        #expect(throws: Never.self) { try rp.verify(RegistrationResponse(json: tpm), expectedChallenge: challenge) }
        let noAttestedData = try withAttestationObject(json) {
            guard case .bytes(let data) = $0[2].value else { return }
            $0[2].value = .bytes(Array(data[..<32]) + [0x01, 0, 0, 0, 0])
        }
        #expect(throws: WebAuthnError.credentialMismatch("no attested credential data")) {
            try rp.verify(RegistrationResponse(json: noAttestedData), expectedChallenge: challenge)
        }
    }

    /// A registration is read only as far as its client data until that has passed: a 16384-bit
    /// key under a wrong challenge is refused as a wrong challenge, under the right one for its
    /// size, and libcrypto does no work on it either way.
    @Test func aHugeKeyIsReadOnlyAfterTheChallengeAndRefusedForItsSize() throws {
        let huge = KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: 16384))
        let challenge = RelyingParty.newChallenge()
        let (_, json) = try authenticator.register(options: registrationOptions(challenge), .init(publicKey: huge))
        let wrongChallenge = KeyWork.during {
            #expect(throws: WebAuthnError.challengeMismatch) {
                try rp.verify(RegistrationResponse(json: json), expectedChallenge: RelyingParty.newChallenge())
            }
        }
        #expect(wrongChallenge.isEmpty)
        let rightChallenge = KeyWork.during {
            #expect(throws: WebAuthnError.unsupportedKey("an RSA modulus of 16384 bits (2048 to 4096 accepted)")) {
                try rp.verify(RegistrationResponse(json: json), expectedChallenge: challenge)
            }
        }
        #expect(rightChallenge.isEmpty)
    }

    @Test func malformedRegistrationResponses() throws {
        let challenge = RelyingParty.newChallenge()
        let (_, json) = try authenticator.register(options: registrationOptions(challenge))
        guard case .object(let good) = json, case .object(let response)? = good["response"] else { return }
        func with(_ key: String, _ value: JSON?, inResponse: Bool = false) -> JSON {
            var object = good
            if inResponse {
                var inner = response
                inner[key] = value
                object["response"] = .object(inner)
            } else {
                object[key] = value
            }
            return .object(object)
        }
        let cases: [(JSON, WebAuthnError)] = [
            ("text", .malformedResponse("the credential is not an object")),
            (with("type", "password"), .malformedResponse("type is not \"public-key\"")),
            (with("rawId", "AQ=="), .malformedResponse("rawId is not a base64url credential id")),
            (with("rawId", ""), .malformedResponse("rawId is not a base64url credential id")),
            (with("id", "AQ"), .malformedResponse("id differs from rawId")),
            (with("response", nil), .malformedResponse("no response object")),
            (with("clientDataJSON", nil, inResponse: true), .malformedResponse("response.clientDataJSON is missing")),
            (with("attestationObject", 7, inResponse: true), .malformedResponse("response.attestationObject is not base64url")),
            (with("attestationObject", .string(Base64URL.encode([UInt8](repeating: 0, count: 32_769))), inResponse: true),
             .malformedResponse("attestationObject is too long")),
        ]
        for (json, expected) in cases {
            #expect(throws: expected) { try RegistrationResponse(json: json) }
        }
        // The attestation object is parsed by the verification, after the client data passed.
        let noFormat = try RegistrationResponse(json: with("attestationObject", "oA", inResponse: true))
        #expect(throws: WebAuthnError.malformedResponse("attestationObject has no fmt")) { try rp.verify(noFormat, expectedChallenge: challenge) }
        #expect(throws: WebAuthnError.challengeMismatch) { try rp.verify(noFormat, expectedChallenge: RelyingParty.newChallenge()) }
    }

    // MARK: - Authentication

    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048])
    func authenticationPassesAndTheCounterAdvances(kind: PrivateKey.Kind) throws {
        var (credential, stored) = try registered(kind)
        for expected in UInt32(1)...3 {
            let challenge = RelyingParty.newChallenge()
            let json = try authenticator.assert(options: rp.authenticationOptions(challenge: challenge, allowCredentials: []), credential: &credential)
            let response = try AuthenticationResponse(json: json)
            #expect(response.credentialId == credential.id)
            #expect(response.userHandle == userHandle)
            let verified = try rp.verify(response, expectedChallenge: challenge, credential: stored, userHandleRequired: true)
            #expect(verified == .init(signCount: expected, userVerified: true))
            stored = .init(publicKey: stored.publicKey, signCount: verified.signCount, userHandle: userHandle)
        }
    }

    @Test func anAuthenticatorWithoutACounterAlwaysSendsZero() throws {
        var (credential, stored) = try registered(counterStep: 0)
        for _ in 0..<2 {
            let challenge = RelyingParty.newChallenge()
            let json = try authenticator.assert(options: rp.authenticationOptions(challenge: challenge, allowCredentials: []), credential: &credential)
            #expect(try rp.verify(AuthenticationResponse(json: json), expectedChallenge: challenge, credential: stored, userHandleRequired: true).signCount == 0)
        }
    }

    /// An authenticator that checks only presence (a security key without a PIN) passes, and the
    /// result says its user was not verified, at registration and at each assertion.
    @Test func theUserVerificationFlagIsReported() throws {
        let touchOnly = SoftwareAuthenticator(origin: "https://example.com", verifiesUser: false)
        let registration = RelyingParty.newChallenge()
        let made = try touchOnly.register(options: registrationOptions(registration))
        var credential = made.credential
        let registered = try rp.verify(RegistrationResponse(json: made.response), expectedChallenge: registration)
        #expect(!registered.userVerified)
        let stored = RelyingParty.StoredCredential(publicKey: registered.publicKey, signCount: 0, userHandle: userHandle)
        let challenge = RelyingParty.newChallenge()
        let options = rp.authenticationOptions(challenge: challenge, allowCredentials: [])
        let unverified = try touchOnly.assert(options: options, credential: &credential)
        #expect(try rp.verify(AuthenticationResponse(json: unverified), expectedChallenge: challenge, credential: stored, userHandleRequired: true)
            == .init(signCount: 1, userVerified: false))
        // The default authenticator verifies its user (its assertions: authenticationPassesAndTheCounterAdvances).
        let verifying = RelyingParty.newChallenge()
        let (_, byVerifying) = try authenticator.register(options: registrationOptions(verifying))
        #expect(try rp.verify(RegistrationResponse(json: byVerifying), expectedChallenge: verifying).userVerified)
    }

    @Test func aMissingUserHandleIsAcceptedOnlyWhenTheOptionsNamedTheUser() throws {
        let registration = try registered()
        var credential = registration.0
        let stored = registration.1
        let challenge = RelyingParty.newChallenge()
        let options = rp.authenticationOptions(challenge: challenge, allowCredentials: [credential.id])
        let response = try AuthenticationResponse(json: authenticator.assert(options: options, credential: &credential, .init(omitUserHandle: true)))
        #expect(response.userHandle == nil)
        #expect(try rp.verify(response, expectedChallenge: challenge, credential: stored, userHandleRequired: false).signCount == 1)
        #expect(throws: WebAuthnError.userHandleMismatch) {
            try rp.verify(response, expectedChallenge: challenge, credential: stored, userHandleRequired: true)
        }
    }

    @Test func authenticationRefusals() throws {
        let (original, stored) = try registered()
        let stale = RelyingParty.StoredCredential(publicKey: stored.publicKey, signCount: 10, userHandle: userHandle)
        let cases: [(SoftwareAuthenticator.Variation, RelyingParty.StoredCredential, WebAuthnError)] = [
            (.init(type: "webauthn.create"), stored, .wrongType("webauthn.create")),
            (.init(challenge: RelyingParty.newChallenge()), stored, .challengeMismatch),
            (.init(origin: "https://example.com.evil.example"), stored, .originNotAllowed("https://example.com.evil.example")),
            (.init(crossOrigin: true), stored, .crossOrigin),
            (.init(rpId: "other.example"), stored, .rpIdHashMismatch),
            (.init(userPresent: false), stored, .userNotPresent),
            (.init(badSignature: true), stored, .badSignature),
            (.init(userHandle: Array("someone else".utf8)), stored, .userHandleMismatch),
            (.init(signCount: 0), stale, .counterNotIncreased(stored: 10, received: 0)),
            (.init(), stale, .counterNotIncreased(stored: 10, received: 1)),
            (.init(signCount: 10), stale, .counterNotIncreased(stored: 10, received: 10)),
        ]
        for (variation, storedCredential, expected) in cases {
            var credential = original
            let challenge = RelyingParty.newChallenge()
            let json = try authenticator.assert(
                options: rp.authenticationOptions(challenge: challenge, allowCredentials: []), credential: &credential, variation)
            #expect(throws: expected) {
                try rp.verify(AuthenticationResponse(json: json), expectedChallenge: challenge, credential: storedCredential, userHandleRequired: true)
            }
        }
    }

    @Test func aReplayedAssertionIsRefusedForTheNextChallenge() throws {
        var (credential, stored) = try registered()
        let first = RelyingParty.newChallenge()
        let json = try authenticator.assert(options: rp.authenticationOptions(challenge: first, allowCredentials: []), credential: &credential)
        let verified = try rp.verify(AuthenticationResponse(json: json), expectedChallenge: first, credential: stored, userHandleRequired: true)
        stored = .init(publicKey: stored.publicKey, signCount: verified.signCount, userHandle: userHandle)
        // Even were the challenge accepted again, the counter has not moved.
        #expect(throws: WebAuthnError.challengeMismatch) {
            try rp.verify(AuthenticationResponse(json: json), expectedChallenge: RelyingParty.newChallenge(), credential: stored, userHandleRequired: true)
        }
        #expect(throws: WebAuthnError.counterNotIncreased(stored: 1, received: 1)) {
            try rp.verify(AuthenticationResponse(json: json), expectedChallenge: first, credential: stored, userHandleRequired: true)
        }
    }

    @Test func anotherUsersCredentialDoesNotVerify() throws {
        var (mine, myStored) = try registered()
        let (_, theirs) = try registered()
        let challenge = RelyingParty.newChallenge()
        let json = try authenticator.assert(options: rp.authenticationOptions(challenge: challenge, allowCredentials: []), credential: &mine)
        // Checked against another passkey (claimed by its id): its key does not verify my signature.
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verify(AuthenticationResponse(json: json), expectedChallenge: challenge, credential: theirs, userHandleRequired: true)
        }
        // A passkey stored for another user: my user handle is not its owner's.
        let othersPasskey = RelyingParty.StoredCredential(publicKey: myStored.publicKey, signCount: 0, userHandle: Array("u7654321".utf8))
        #expect(throws: WebAuthnError.userHandleMismatch) {
            try rp.verify(AuthenticationResponse(json: json), expectedChallenge: challenge, credential: othersPasskey, userHandleRequired: true)
        }
    }

    /// An assertion carrying attested credential data (which WebAuthn never sends in one) with a
    /// 16384-bit key: refused at the challenge when that is wrong, then for the AT flag, and
    /// the key is never read.
    @Test func anAssertionCarryingAKeyIsRefusedWithoutReadingIt() throws {
        var (credential, stored) = try registered()
        let huge = KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: 16384))
        let challenge = RelyingParty.newChallenge()
        let json = try authenticator.assert(
            options: rp.authenticationOptions(challenge: challenge, allowCredentials: []), credential: &credential, .init(publicKey: huge))
        let wrongChallenge = KeyWork.during {
            #expect(throws: WebAuthnError.challengeMismatch) {
                try rp.verify(AuthenticationResponse(json: json), expectedChallenge: RelyingParty.newChallenge(), credential: stored, userHandleRequired: true)
            }
        }
        #expect(wrongChallenge.isEmpty)
        let rightChallenge = KeyWork.during {
            #expect(throws: WebAuthnError.malformedAuthenticatorData("the AT flag (attested credential data) in an assertion")) {
                try rp.verify(AuthenticationResponse(json: json), expectedChallenge: challenge, credential: stored, userHandleRequired: true)
            }
        }
        #expect(rightChallenge.isEmpty)
    }

    @Test func malformedAuthenticationResponses() throws {
        var (credential, stored) = try registered()
        let json = try authenticator.assert(options: rp.authenticationOptions(challenge: [1], allowCredentials: []), credential: &credential)
        guard case .object(let good) = json, case .object(let response)? = good["response"] else { return }
        func with(_ key: String, _ value: JSON?) -> JSON {
            var object = good
            var inner = response
            inner[key] = value
            object["response"] = .object(inner)
            return .object(object)
        }
        let cases: [(JSON, WebAuthnError)] = [
            (with("signature", nil), .malformedResponse("response.signature is missing")),
            (with("signature", .string(Base64URL.encode([UInt8](repeating: 1, count: 1025)))), .malformedResponse("the signature is too long")),
            (with("authenticatorData", "A*"), .malformedResponse("response.authenticatorData is not base64url")),
            (with("clientDataJSON", "AQ"), .malformedClientData("not JSON (")),
            (with("userHandle", "*"), .malformedResponse("response.userHandle is not base64url")),
        ]
        for (json, expected) in cases {
            #expect {
                _ = try AuthenticationResponse(json: json)
            } throws: { error in
                guard let error = error as? WebAuthnError else { return false }
                return error == expected || error.description.hasPrefix(expected.description.dropLast(2))
            }
        }
        // The authenticator data is parsed by the verification, after the client data passed.
        #expect(throws: WebAuthnError.malformedAuthenticatorData("1 bytes, at least 37 required")) {
            try rp.verify(AuthenticationResponse(json: with("authenticatorData", "AQ")), expectedChallenge: [1], credential: stored, userHandleRequired: true)
        }
        #expect(try AuthenticationResponse(json: with("userHandle", .null)).userHandle == nil)
        #expect(try AuthenticationResponse(json: with("userHandle", "")).userHandle == nil)
    }
}
