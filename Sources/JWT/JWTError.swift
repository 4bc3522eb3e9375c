internal import Signatures

/// Why a token, a key or a key set was refused. Descriptions never quote a token or a claim's value.
public enum JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token is not a compact JWS of three base64url parts with JSON object header and claims.
    case malformedToken(String)
    /// The token's `alg` is not RS256 or ES256 (`none` and `HS*` included).
    case unsupportedAlgorithm(String)
    /// A key of a type (or EC curve) this library does not verify with; key sets skip such keys.
    case unsupportedKey(String)
    /// A key of a supported type whose fields are missing, malformed or too weak.
    case invalidKey(String)
    /// A key set that is not `{"keys": [...]}` of objects.
    case invalidKeySet(String)
    /// The key's `kty` or stated `alg` does not match the token's algorithm.
    case keyMismatch(String)
    /// The signature does not verify with the key.
    case invalidSignature
    /// A required claim is absent or not of the required JSON type.
    case missingClaim(String)
    /// A claim is present but not the expected value (`iss`, `aud`, `sub`, `nonce`).
    case wrongClaim(String)
    /// `exp` is before now by more than the leeway.
    case expired
    /// `iat` is after now by more than the leeway.
    case issuedInFuture
    /// libcrypto failed at something that should not fail (out of memory, say).
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case .malformedToken(let detail): "Malformed token: \(detail)."
        case .unsupportedAlgorithm(let algorithm): "Unsupported token algorithm \"\(algorithm)\" (only RS256 and ES256 are accepted)."
        case .unsupportedKey(let detail): "Unsupported key: \(detail)."
        case .invalidKey(let detail): "Invalid key: \(detail)."
        case .invalidKeySet(let detail): "Invalid key set: \(detail)."
        case .keyMismatch(let detail): "Key does not match the token: \(detail)."
        case .invalidSignature: "The token's signature does not verify."
        case .missingClaim(let name): "The token's \"\(name)\" claim is missing or of the wrong type."
        case .wrongClaim(let name): "The token's \"\(name)\" claim is not the expected value."
        case .expired: "The token has expired."
        case .issuedInFuture: "The token's \"iat\" is in the future."
        case .cryptoFailure(let detail): "libcrypto failed: \(detail)."
        }
    }
}

extension JWTError {
    /// Runs a libcrypto key operation, its refusals as this library's errors.
    static func from<T>(_ body: () throws(SignatureError) -> T) throws(JWTError) -> T {
        do { return try body() } catch {
            switch error {
            case .invalidKey(let detail): throw JWTError.invalidKey(detail)
            case .cryptoFailure(let function): throw JWTError.cryptoFailure(function)
            }
        }
    }
}
