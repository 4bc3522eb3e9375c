import Foundation

/// The binary fields of the WebAuthn JSON forms (base64url, RFC 4648 §5, without padding), and
/// the credential JSON the server takes, built from the raw parts a platform API returns.
extension JSONValue {
    /// `data` as a base64url string without padding.
    public static func base64URL(_ data: Data) -> JSONValue {
        .string(
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""))
    }

    /// The bytes of a base64url string (padding optional), such as an options' `challenge` or
    /// `user.id`; `nil` for other values and for text that is not base64url.
    public var base64URLData: Data? {
        guard var text = string else { return nil }
        if text.hasSuffix("==") { text.removeLast(2) } else if text.hasSuffix("=") { text.removeLast() }
        // Foundation's decoder takes "+", "/" and misplaced padding, which base64url has not.
        guard !text.contains("+"), !text.contains("/"), !text.contains("="), text.count % 4 != 1 else { return nil }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return Data(base64Encoded: base64 + String(repeating: "=", count: (4 - text.count % 4) % 4))
    }

    /// A `RegistrationResponseJSON` for ``GatehouseAuth/registerPasskey(credential:name:)`` from
    /// the parts of a new credential: on Apple platforms an
    /// `ASAuthorizationPlatformPublicKeyCredentialRegistration`'s `credentialID`,
    /// `rawClientDataJSON` and `rawAttestationObject`.
    public static func passkeyRegistration(credentialID: Data, clientDataJSON: Data, attestationObject: Data) -> JSONValue {
        [
            "id": .base64URL(credentialID), "rawId": .base64URL(credentialID), "type": "public-key",
            "response": ["clientDataJSON": .base64URL(clientDataJSON), "attestationObject": .base64URL(attestationObject)],
            "clientExtensionResults": [:],
        ]
    }

    /// An `AuthenticationResponseJSON` for ``GatehouseAuth/logIn(passkeyCredential:)`` from the
    /// parts of an assertion: on Apple platforms an `ASAuthorizationPlatformPublicKeyCredentialAssertion`'s
    /// `credentialID`, `rawClientDataJSON`, `rawAuthenticatorData`, `signature` and `userID`.
    public static func passkeyAssertion(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?
    ) -> JSONValue {
        var response: [String: JSONValue] = [
            "clientDataJSON": .base64URL(clientDataJSON), "authenticatorData": .base64URL(authenticatorData),
            "signature": .base64URL(signature),
        ]
        if let userHandle { response["userHandle"] = .base64URL(userHandle) }
        return [
            "id": .base64URL(credentialID), "rawId": .base64URL(credentialID), "type": "public-key",
            "response": .object(response), "clientExtensionResults": [:],
        ]
    }
}
