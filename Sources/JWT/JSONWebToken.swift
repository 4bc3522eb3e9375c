internal import Signatures
public import Foundation
public import JSON

/// A JSON Web Token in JWS compact form (RFC 7515 §7.1, RFC 7519), parsed but not yet trusted:
/// call ``verifySignature(with:)`` and ``checkClaims(issuer:audiences:subject:nonce:now:leeway:)``.
public struct JSONWebToken: Sendable {
    /// The JOSE header.
    public let header: JSONObject
    /// The claims set.
    public let claims: JSONObject
    /// The header's `alg`.
    public let algorithm: String
    /// The header's `kid`, if any.
    public let keyId: String?
    private let signingInput: [UInt8]
    private let signature: [UInt8]

    /// Longest token accepted, in characters; ID tokens are about a kilobyte.
    public static let maxLength = 16_384

    /// Parses `header.claims.signature`, each part base64url without padding, header and claims
    /// JSON objects, `alg` a string.
    public init(compact: String) throws(JWTError) {
        let text = Array(compact.utf8)
        guard text.count <= Self.maxLength else { throw JWTError.malformedToken("longer than \(Self.maxLength) characters") }
        let dots = text.indices.filter { text[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw JWTError.malformedToken("\(dots.count + 1) parts separated by \".\" instead of 3") }
        header = try Self.object(text[..<dots[0]], "header")
        claims = try Self.object(text[(dots[0] + 1)..<dots[1]], "claims set")
        guard let signature = Base64URL.decode(text[(dots[1] + 1)...]) else {
            throw JWTError.malformedToken("the signature is not base64url without padding")
        }
        guard let algorithm = header["alg"]?.stringValue else { throw JWTError.malformedToken("the header's \"alg\" is missing or not a string") }
        switch header["kid"] {
        case nil, .null?: keyId = nil
        case .string(let id)?: keyId = id
        default: throw JWTError.malformedToken("the header's \"kid\" is not a string")
        }
        self.algorithm = algorithm
        self.signature = signature
        signingInput = Array(text[..<dots[1]])
    }

    /// Checks the signature with `key`. Only RS256 (RSA PKCS#1 v1.5 with SHA-256) and ES256
    /// (ECDSA P-256 with SHA-256, signature r || s of 32 bytes each) are accepted; `none`, `HS*`
    /// and every other algorithm are refused, as is a key whose `kty` (or `alg`, when the key
    /// states one) does not match the algorithm.
    public func verifySignature(with key: JSONWebKey) throws(JWTError) {
        let expectedKeyType: String
        switch algorithm {
        case "RS256": expectedKeyType = "RSA"
        case "ES256": expectedKeyType = "EC"
        // The token's own text, which may be kilobytes long: cut for the description.
        default: throw JWTError.unsupportedAlgorithm(algorithm.utf8Prefix(64))
        }
        guard key.keyType == expectedKeyType else {
            throw JWTError.keyMismatch("\(algorithm) needs an \(expectedKeyType) key, not \(key.keyType)")
        }
        if let stated = key.algorithm, stated != algorithm {
            throw JWTError.keyMismatch("the key is for \(stated), the token is \(algorithm)")
        }
        var encoded = signature
        if algorithm == "ES256" {
            guard signature.count == 64 else { throw JWTError.invalidSignature }
            encoded = try JWTError.from { () throws(SignatureError) in try PublicKey.derECDSASignature(raw: signature) }
        }
        let signed = signingInput
        guard try JWTError.from({ () throws(SignatureError) in try key.publicKey.verifySHA256(signature: encoded, message: signed) }) else { throw JWTError.invalidSignature }
    }

    /// Checks the ID token claims (OpenID Connect Core §3.1.3.7): `iss` is `issuer`; `aud` (a
    /// string or an array of strings) contains one of `audiences`; `exp` > now − leeway;
    /// `iat` ≤ now + leeway; `sub` is `subject`; and, when `nonce` is given, the `nonce` claim is
    /// it. Dates are NumericDate: seconds since 1970, integer or decimal.
    public func checkClaims(
        issuer: String, audiences: [String], subject: String, nonce: String?, now: Date, leeway: TimeInterval = 60
    ) throws(JWTError) {
        guard try string("iss") == issuer else { throw JWTError.wrongClaim("iss") }
        let audience: [String]
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        case .array(let values)? where !values.isEmpty && values.allSatisfy({ $0.stringValue != nil }):
            audience = values.compactMap(\.stringValue)
        default: throw JWTError.missingClaim("aud")
        }
        guard audience.contains(where: { audiences.contains($0) }) else { throw JWTError.wrongClaim("aud") }
        let seconds = now.timeIntervalSince1970
        guard try date("exp") > seconds - leeway else { throw JWTError.expired }
        guard try date("iat") <= seconds + leeway else { throw JWTError.issuedInFuture }
        guard try string("sub") == subject else { throw JWTError.wrongClaim("sub") }
        if let nonce, try string("nonce") != nonce { throw JWTError.wrongClaim("nonce") }
    }

    private func string(_ name: String) throws(JWTError) -> String {
        guard let value = claims[name]?.stringValue else { throw JWTError.missingClaim(name) }
        return value
    }

    private func date(_ name: String) throws(JWTError) -> Double {
        switch claims[name] {
        case .int(let value)?: return Double(value)
        case .double(let value)? where value.isFinite: return value
        default: throw JWTError.missingClaim(name)
        }
    }

    private static func object(_ part: ArraySlice<UInt8>, _ name: String) throws(JWTError) -> JSONObject {
        guard let bytes = Base64URL.decode(part) else { throw JWTError.malformedToken("the \(name) is not base64url without padding") }
        let json: JSON
        do { json = try JSONParser(maxDepth: 32).parse(bytes) } catch { throw JWTError.malformedToken("the \(name) is not JSON") }
        guard let object = json.objectValue else { throw JWTError.malformedToken("the \(name) is not a JSON object") }
        return object
    }
}
