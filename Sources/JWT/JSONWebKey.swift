internal import Signatures
public import JSON

/// A public JSON Web Key (RFC 7517, RFC 7518 §6): RSA (`n`, `e`, at least 2048 bits) or EC P-256
/// (`crv` "P-256", `x`, `y`). The key material is checked when the key is made.
public struct JSONWebKey: Sendable {
    /// `kty`: "RSA" or "EC".
    public let keyType: String
    /// `kid`, which a token's header names to pick its key from a set.
    public let keyId: String?
    /// `alg` if the key states one; a token of another algorithm is then refused.
    public let algorithm: String?
    /// The key's public members as a key set publishes them: `kty`, `crv`, `x`, `y` or `n`, `e`,
    /// and `kid`, `alg` and `use` when the key has them. Never a private member, whatever the
    /// object the key was read from held.
    public let json: JSONObject
    let publicKey: PublicKey

    /// Reads a key object. Throws ``JWTError/unsupportedKey(_:)`` for another `kty` or EC curve,
    /// ``JWTError/invalidKey(_:)`` for missing, malformed or weak key material.
    public init(json: JSONObject) throws(JWTError) {
        guard let keyType = json["kty"]?.stringValue else { throw JWTError.invalidKey("\"kty\" is missing or not a string") }
        keyId = try Self.optionalString(json, "kid")
        algorithm = try Self.optionalString(json, "alg")
        let use = try Self.optionalString(json, "use")
        var members: JSONObject = ["kty": .string(keyType)]
        switch keyType {
        case "RSA":
            let modulus = try Self.bytes(json, "n")
            let exponent = try Self.bytes(json, "e")
            publicKey = try JWTError.from { () throws(SignatureError) in try PublicKey.rsa(modulus: modulus, exponent: exponent) }
            members["n"] = json["n"]
            members["e"] = json["e"]
        case "EC":
            guard let curve = json["crv"]?.stringValue else { throw JWTError.invalidKey("\"crv\" is missing or not a string") }
            guard curve == "P-256" else { throw JWTError.unsupportedKey("EC curve \"\(curve)\"") }
            let x = try Self.bytes(json, "x")
            let y = try Self.bytes(json, "y")
            guard x.count == 32, y.count == 32 else { throw JWTError.invalidKey("P-256 \"x\" and \"y\" must be 32 bytes each") }
            publicKey = try JWTError.from { () throws(SignatureError) in try PublicKey.p256(x: x, y: y) }
            members["crv"] = .string(curve)
            members["x"] = json["x"]
            members["y"] = json["y"]
        default:
            throw JWTError.unsupportedKey("\"kty\" \"\(keyType)\"")
        }
        if let keyId { members["kid"] = .string(keyId) }
        if let algorithm { members["alg"] = .string(algorithm) }
        if let use { members["use"] = .string(use) }
        self.keyType = keyType
        self.json = members
    }

    private static func optionalString(_ json: JSONObject, _ name: String) throws(JWTError) -> String? {
        guard let value = json[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw JWTError.invalidKey("\"\(name)\" is not a string") }
        return text
    }

    private static func bytes(_ json: JSONObject, _ name: String) throws(JWTError) -> [UInt8] {
        guard let text = json[name]?.stringValue else { throw JWTError.invalidKey("\"\(name)\" is missing or not a string") }
        guard let bytes = Base64URL.decode(text[...]), !bytes.isEmpty else {
            throw JWTError.invalidKey("\"\(name)\" is not base64url without padding")
        }
        return bytes
    }
}
