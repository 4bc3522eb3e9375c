public import JSON

/// A `RegistrationResponseJSON` (the JSON form of `navigator.credentials.create`'s result), read
/// only as far as the challenge: the service takes the challenge `clientData.challenge` names,
/// then calls `RelyingParty.verify(_:expectedChallenge:)`, which reads the attestation object
/// (and the key in it) only once the client data has passed. So a response whose challenge was
/// never given out costs no key parsing.
public struct RegistrationResponse: Sendable {
    /// The credential id (`rawId`; `id` must be its base64url form).
    public let credentialId: [UInt8]
    public let clientData: ClientData
    /// The `attestationObject` as received, not yet parsed (see ``attestation()``).
    public let attestationObject: [UInt8]

    /// Longest `attestationObject` accepted; with a certificate chain they run to a few kilobytes.
    public static let maxAttestationObjectLength = 32_768

    /// The parts of the attestation object (§6.5.4).
    public struct Attestation: Sendable {
        /// The attestation statement format (`fmt`).
        public let format: String
        /// The attestation statement (`attStmt`, a map).
        public let statement: CBOR
        /// The authenticator data, with the new credential's key.
        public let authenticatorData: AuthenticatorData
    }

    /// Reads the members and the client data; throws `malformed…` errors only.
    public init(json: JSON) throws(WebAuthnError) {
        let fields = try ResponseFields(json)
        clientData = try ClientData(try fields.bytes("clientDataJSON"))
        let attestation = try fields.bytes("attestationObject")
        guard attestation.count <= Self.maxAttestationObjectLength else { throw WebAuthnError.malformedResponse("attestationObject is too long") }
        credentialId = fields.credentialId
        attestationObject = attestation
    }

    /// Parses the attestation object: its CBOR, then the authenticator data with the credential's
    /// COSE key (which refuses keys of other types and sizes before libcrypto sees them).
    public func attestation() throws(WebAuthnError) -> Attestation {
        let object = try CBORDecoder().decode(attestationObject)
        guard case .text(let format)? = object[text: "fmt"] else { throw WebAuthnError.malformedResponse("attestationObject has no fmt") }
        guard let statement = object[text: "attStmt"], case .map = statement else { throw WebAuthnError.malformedResponse("attestationObject has no attStmt map") }
        guard case .bytes(let authData)? = object[text: "authData"] else { throw WebAuthnError.malformedResponse("attestationObject has no authData") }
        return Attestation(format: format, statement: statement, authenticatorData: try AuthenticatorData(authData, ceremony: .registration))
    }
}

/// The members every `PublicKeyCredential` JSON form shares: `id`, `rawId`, `type` and `response`.
struct ResponseFields {
    let credentialId: [UInt8]
    let response: JSONObject

    init(_ json: JSON) throws(WebAuthnError) {
        guard json.objectValue != nil else { throw WebAuthnError.malformedResponse("the credential is not an object") }
        guard json["type"]?.stringValue == "public-key" else { throw WebAuthnError.malformedResponse("type is not \"public-key\"") }
        guard let rawIdText = json["rawId"]?.stringValue, let rawId = Base64URL.decode(rawIdText), !rawId.isEmpty,
            rawId.count <= AuthenticatorData.maxCredentialIdLength
        else { throw WebAuthnError.malformedResponse("rawId is not a base64url credential id") }
        guard json["id"]?.stringValue == rawIdText else { throw WebAuthnError.malformedResponse("id differs from rawId") }
        guard let response = json["response"]?.objectValue else { throw WebAuthnError.malformedResponse("no response object") }
        credentialId = rawId
        self.response = response
    }

    /// A required base64url member of `response`.
    func bytes(_ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let value = try optionalBytes(name) else { throw WebAuthnError.malformedResponse("response.\(name) is missing") }
        return value
    }

    /// An optional base64url member of `response` (absent or null: nil).
    func optionalBytes(_ name: String) throws(WebAuthnError) -> [UInt8]? {
        guard let value = response[name], !value.isNull else { return nil }
        guard let text = value.stringValue, let bytes = Base64URL.decode(text) else {
            throw WebAuthnError.malformedResponse("response.\(name) is not base64url")
        }
        return bytes
    }
}
