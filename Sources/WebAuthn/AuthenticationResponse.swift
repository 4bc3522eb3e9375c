public import JSON

/// An `AuthenticationResponseJSON` (the JSON form of `navigator.credentials.get`'s result), parsed
/// but not yet verified: the service reads `clientData.challenge` and `credentialId` to find the
/// challenge it issued and the stored passkey, then calls
/// `RelyingParty.verify(_:expectedChallenge:credential:)`.
public struct AuthenticationResponse: Sendable {
    /// The credential id (`rawId`; `id` must be its base64url form).
    public let credentialId: [UInt8]
    public let clientData: ClientData
    public let authenticatorData: AuthenticatorData
    public let signature: [UInt8]
    /// The user handle a discoverable credential returns (our user's id), if any.
    public let userHandle: [UInt8]?

    /// Parses `json`; throws `malformed…` errors only.
    public init(json: JSON) throws(WebAuthnError) {
        let fields = try ResponseFields(json)
        credentialId = fields.credentialId
        clientData = try ClientData(try fields.bytes("clientDataJSON"))
        authenticatorData = try AuthenticatorData(try fields.bytes("authenticatorData"))
        signature = try fields.bytes("signature")
        guard signature.count <= 1024 else { throw WebAuthnError.malformedResponse("the signature is too long") }
        let handle = try fields.optionalBytes("userHandle")
        userHandle = handle?.isEmpty == true ? nil : handle
    }
}
