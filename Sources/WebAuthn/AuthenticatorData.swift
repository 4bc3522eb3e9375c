/// Authenticator data (WebAuthn §6.1): rpIdHash, flags, signature counter, and for a
/// registration the attested credential data (§6.5.1); extension outputs are read as CBOR and
/// kept. Nothing may follow the last part.
public struct AuthenticatorData: Sendable {
    /// The flag bits of §6.1.
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (PIN, biometrics).
        public static let userVerified = Flags(rawValue: 0x04)
        /// AT: attested credential data follows the counter.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension outputs follow.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The attested credential data of a registration.
    public struct AttestedCredential: Sendable {
        /// The authenticator model's AAGUID (16 bytes; all zero under `none` attestation).
        public let aaguid: [UInt8]
        /// The new credential's id.
        public let credentialId: [UInt8]
        /// The new credential's public key.
        public let publicKey: COSEKey
    }

    /// Longest credential id accepted (§5.1.1: at most 1023 bytes).
    public static let maxCredentialIdLength = 1023

    /// The bytes as received (the signed data of an assertion begins with them).
    public let bytes: [UInt8]
    /// SHA-256 of the relying party id the authenticator scoped the credential to.
    public let rpIdHash: [UInt8]
    public let flags: Flags
    /// The signature counter (0 for authenticators that keep none).
    public let signCount: UInt32
    /// Present exactly when the AT flag is set.
    public let attestedCredential: AttestedCredential?
    /// The extension outputs (a CBOR map), present exactly when the ED flag is set.
    public let extensions: CBOR?

    /// The ceremony whose authenticator data is read.
    public enum Ceremony: Sendable {
        /// `navigator.credentials.create`: attested credential data may follow (§6.5.1).
        case registration
        /// `navigator.credentials.get`: the AT flag is refused, since an assertion never carries
        /// attested credential data (§6.1), and a key in it would be parsed for nothing.
        case authentication
    }

    /// Parses `bytes` of a `ceremony`.
    public init(_ bytes: [UInt8], ceremony: Ceremony) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw WebAuthnError.malformedAuthenticatorData("\(bytes.count) bytes, at least 37 required") }
        self.bytes = bytes
        rpIdHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        let decoder = CBORDecoder()
        if flags.contains(.attestedCredentialData) {
            guard ceremony == .registration else {
                throw WebAuthnError.malformedAuthenticatorData("the AT flag (attested credential data) in an assertion")
            }
            guard bytes.count >= offset + 18 else { throw WebAuthnError.malformedAuthenticatorData("attested credential data is cut short") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength > 0, idLength <= Self.maxCredentialIdLength else {
                throw WebAuthnError.malformedAuthenticatorData("a credential id of \(idLength) bytes")
            }
            guard bytes.count >= offset + idLength else { throw WebAuthnError.malformedAuthenticatorData("the credential id is cut short") }
            let credentialId = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let (keyItem, keyEnd) = try decoder.decodePrefix(bytes, from: offset)
            let key = try COSEKey(keyItem, encoded: Array(bytes[offset..<keyEnd]))
            offset = keyEnd
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: key)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            let (item, end) = try decoder.decodePrefix(bytes, from: offset)
            guard case .map = item else { throw WebAuthnError.malformedAuthenticatorData("extension outputs are not a map") }
            extensions = item
            offset = end
        } else {
            extensions = nil
        }
        guard offset == bytes.count else { throw WebAuthnError.malformedAuthenticatorData("\(bytes.count - offset) bytes after the last part") }
    }
}
