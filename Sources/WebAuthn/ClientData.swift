internal import JSON

/// The parts of `clientDataJSON` (WebAuthn §5.8.1) the ceremonies check.
public struct ClientData: Sendable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge the client signed, decoded from base64url.
    public let challenge: [UInt8]
    /// The origin of the page (or app) that ran the ceremony.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin frame.
    public let crossOrigin: Bool
    /// The bytes as received (their SHA-256 is part of what is signed).
    public let bytes: [UInt8]

    /// Longest `clientDataJSON` accepted; browsers send about 200 bytes.
    public static let maxLength = 8192

    /// Parses `bytes`, a UTF-8 JSON object.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= Self.maxLength else { throw WebAuthnError.malformedClientData("longer than \(Self.maxLength) bytes") }
        let value: JSON
        do { value = try JSONParser(maxDepth: 8).parse(bytes) } catch { throw WebAuthnError.malformedClientData("not JSON (\(error.message))") }
        guard value.objectValue != nil else { throw WebAuthnError.malformedClientData("not an object") }
        guard let type = value["type"]?.stringValue else { throw WebAuthnError.malformedClientData("no type") }
        guard let challengeText = value["challenge"]?.stringValue, let challenge = Base64URL.decode(challengeText) else {
            throw WebAuthnError.malformedClientData("no base64url challenge")
        }
        guard let origin = value["origin"]?.stringValue else { throw WebAuthnError.malformedClientData("no origin") }
        let crossOrigin = value["crossOrigin"]
        guard crossOrigin == nil || crossOrigin?.boolValue != nil else { throw WebAuthnError.malformedClientData("crossOrigin is not a boolean") }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin?.boolValue ?? false
        self.bytes = bytes
    }
}
