/// The JWS algorithms (RFC 7518 §3.1) this library signs with: ES256 (ECDSA on P-256 with SHA-256)
/// and RS256 (RSA PKCS #1 v1.5 with SHA-256), the two every JWT library verifies.
public enum SigningAlgorithm: String, Sendable, Hashable, CaseIterable {
    case es256 = "ES256"
    case rs256 = "RS256"

    /// The JWK `kty` of its keys: `EC` or `RSA`.
    public var keyType: String {
        switch self {
        case .es256: "EC"
        case .rs256: "RSA"
        }
    }
}
