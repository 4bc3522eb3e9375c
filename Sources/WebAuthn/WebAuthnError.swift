/// Why a WebAuthn response was refused: specific reasons for logs and tests. The service maps
/// every one of them to the contract's single message (`Invalid passkey registration.` or
/// `Invalid passkey.`), so a client learns nothing from the difference. Descriptions quote no
/// challenge, key or signature bytes.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The credential JSON lacks a member, has one of the wrong kind, or is not base64url.
    case malformedResponse(String)
    /// CBOR that the strict decoder refuses.
    case malformedCBOR(String)
    /// `clientDataJSON` that is not a JSON object with the required members.
    case malformedClientData(String)
    /// Authenticator data that is too short, too long, or inconsistent with its flags.
    case malformedAuthenticatorData(String)
    /// A COSE key of another type or algorithm, or with missing or malformed parameters.
    case unsupportedKey(String)
    /// Key material refused (a P-256 point not on the curve; an even RSA modulus, an even RSA exponent or one of 1).
    case invalidKey(String)
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongType(String)
    /// The challenge in `clientDataJSON` is not the one expected.
    case challengeMismatch
    /// `clientDataJSON.origin` is not an allowed origin.
    case originNotAllowed(String)
    /// `clientDataJSON.crossOrigin` is true (the ceremony ran in a cross-origin frame).
    case crossOrigin
    /// The authenticator data's rpIdHash is not SHA-256 of the relying party id.
    case rpIdHashMismatch
    /// The user-present flag is not set.
    case userNotPresent
    /// A registration without attested credential data, or whose credential id differs from the response's id.
    case credentialMismatch(String)
    /// An attestation statement that does not verify (`none` with a statement, a bad `packed` self signature).
    case invalidAttestation(String)
    /// The assertion signature does not verify with the stored public key.
    case badSignature
    /// The assertion's user handle is missing where required, or is another user's.
    case userHandleMismatch
    /// The signature counter did not increase: the authenticator may have been cloned.
    case counterNotIncreased(stored: UInt32, received: UInt32)

    public var description: String {
        switch self {
        case .malformedResponse(let detail): "Malformed WebAuthn response: \(detail)."
        case .malformedCBOR(let detail): "Malformed CBOR: \(detail)."
        case .malformedClientData(let detail): "Malformed client data: \(detail)."
        case .malformedAuthenticatorData(let detail): "Malformed authenticator data: \(detail)."
        case .unsupportedKey(let detail): "Unsupported COSE key: \(detail)."
        case .invalidKey(let detail): "Invalid public key: \(detail)."
        case .wrongType(let type): "Wrong client data type \"\(type)\"."
        case .challengeMismatch: "The challenge is not the one expected."
        case .originNotAllowed(let origin): "Origin \"\(origin)\" is not allowed."
        case .crossOrigin: "The ceremony ran in a cross-origin frame."
        case .rpIdHashMismatch: "The rpIdHash does not match the relying party id."
        case .userNotPresent: "The user-present flag is not set."
        case .credentialMismatch(let detail): "Credential mismatch: \(detail)."
        case .invalidAttestation(let detail): "Invalid attestation: \(detail)."
        case .badSignature: "The assertion signature does not verify."
        case .userHandleMismatch: "The user handle does not match the credential's user."
        case .counterNotIncreased(let stored, let received):
            "The signature counter went from \(stored) to \(received): possibly a cloned authenticator."
        }
    }
}
