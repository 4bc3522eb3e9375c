public import JSON

/// An `AuthenticationResponseJSON` (the JSON form of `navigator.credentials.get`'s result), read
/// only as far as the challenge and the credential id: the service reads `clientData.challenge`
/// and `credentialId` to find the challenge it issued and the stored passkey, then calls
/// `RelyingParty.verify(_:expectedChallenge:credential:userHandleRequired:)`, which parses the
/// authenticator data once the client data has passed.
public struct AuthenticationResponse: Sendable {
    /// The credential id (`rawId`; `id` must be its base64url form).
    public let credentialId: [UInt8]
    public let clientData: ClientData
    /// The `authenticatorData` as received, not yet parsed (see ``authenticatorData()``).
    public let rawAuthenticatorData: [UInt8]
    public let signature: [UInt8]
    /// The user handle a discoverable credential returns (our user's id), if any.
    public let userHandle: [UInt8]?

    /// Reads the members and the client data; throws `malformed…` errors only.
    public init(json: JSON) throws(WebAuthnError) {
        let fields = try ResponseFields(json)
        credentialId = fields.credentialId
        clientData = try ClientData(try fields.bytes("clientDataJSON"))
        rawAuthenticatorData = try fields.bytes("authenticatorData")
        signature = try fields.bytes("signature")
        guard signature.count <= 1024 else { throw WebAuthnError.malformedResponse("the signature is too long") }
        let handle = try fields.optionalBytes("userHandle")
        userHandle = handle?.isEmpty == true ? nil : handle
    }

    /// Parses the authenticator data of this assertion (the AT flag refused).
    public func authenticatorData() throws(WebAuthnError) -> AuthenticatorData {
        try AuthenticatorData(rawAuthenticatorData, ceremony: .authentication)
    }
}
