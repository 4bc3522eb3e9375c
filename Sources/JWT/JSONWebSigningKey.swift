internal import Signatures
public import JSON

/// A private key that signs JSON Web Tokens (``JSONWebToken/sign(claims:type:with:)``): ES256
/// with a P-256 key, RS256 with an RSA-2048 key, through libcrypto. Its public half
/// (``publicKey``) is what a key set publishes for verifiers.
///
/// The private key leaves the value only as ``derEncoded()``, for its owner to seal.
public struct JSONWebSigningKey: Sendable {
    /// The algorithm every token this key signs names in its header.
    public let algorithm: SigningAlgorithm
    /// `kid`: the header's key id, which verifiers look the key up by.
    public let keyId: String
    /// The public half as a key set publishes it: `kty`, `crv`/`x`/`y` or `n`/`e`, `kid`,
    /// `alg` and `use: "sig"`.
    public let publicKey: JSONWebKey
    private let privateKey: PrivateKey

    /// A new key for `algorithm`; `keyId` names it, given the public half without `kid` (so that
    /// a key id may be derived from it, e.g. its ``JSONWebKey/thumbprintInput``).
    public init(generating algorithm: SigningAlgorithm, keyId: (JSONWebKey) -> String) throws(JWTError) {
        let privateKey = try JWTError.from { () throws(SignatureError) in try PrivateKey(generating: Self.kind(algorithm)) }
        let unnamed = try Self.publicKey(of: privateKey, algorithm: algorithm, keyId: nil)
        try self.init(privateKey, algorithm: algorithm, keyId: keyId(unnamed))
    }

    /// The key of ``derEncoded()``'s bytes, for `algorithm` (whose key type it must be: a P-256
    /// key for ES256, RSA-2048 for RS256), named `keyId`.
    public init(der: [UInt8], algorithm: SigningAlgorithm, keyId: String) throws(JWTError) {
        let privateKey = try JWTError.from { () throws(SignatureError) in try PrivateKey(der: der) }
        guard privateKey.kind == Self.kind(algorithm) else {
            throw JWTError.keyMismatch("the private key is not a \(algorithm.keyType) key of \(algorithm.rawValue)")
        }
        try self.init(privateKey, algorithm: algorithm, keyId: keyId)
    }

    private init(_ privateKey: PrivateKey, algorithm: SigningAlgorithm, keyId: String) throws(JWTError) {
        self.algorithm = algorithm
        self.keyId = keyId
        self.privateKey = privateKey
        self.publicKey = try Self.publicKey(of: privateKey, algorithm: algorithm, keyId: keyId)
    }

    /// The private key's DER encoding, which ``init(der:algorithm:keyId:)`` reads back: the
    /// secret itself, to be sealed before it is stored.
    public func derEncoded() throws(JWTError) -> [UInt8] {
        try JWTError.from { () throws(SignatureError) in try privateKey.derEncoded() }
    }

    /// The JWS signature of `input` in the algorithm's form: ES256's r || s (RFC 7518 §3.4),
    /// RS256's PKCS #1 v1.5 signature as it is.
    func signature(of input: [UInt8]) throws(JWTError) -> [UInt8] {
        try JWTError.from { () throws(SignatureError) in
            let signature = try privateKey.signSHA256(input)
            switch algorithm {
            case .es256: return try PublicKey.rawECDSASignature(der: signature)
            case .rs256: return signature
            }
        }
    }

    private static func kind(_ algorithm: SigningAlgorithm) -> PrivateKey.Kind {
        switch algorithm {
        case .es256: .p256
        case .rs256: .rsa2048
        }
    }

    private static func publicKey(of privateKey: PrivateKey, algorithm: SigningAlgorithm, keyId: String?) throws(JWTError) -> JSONWebKey {
        var members: JSONObject
        switch try JWTError.from({ () throws(SignatureError) in try privateKey.publicNumbers() }) {
        case .p256(let x, let y):
            members = ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y))]
        case .rsa(let modulus, let exponent):
            members = ["kty": "RSA", "n": .string(Base64URL.encode(modulus)), "e": .string(Base64URL.encode(exponent))]
        }
        if let keyId { members["kid"] = .string(keyId) }
        members["alg"] = .string(algorithm.rawValue)
        members["use"] = "sig"
        return try JSONWebKey(json: members)
    }
}

extension JSONWebKey {
    /// The input of the key's JWK thumbprint (RFC 7638 §3.2): the required public members in
    /// lexicographic order, without whitespace (`{"crv","kty","x","y"}` or `{"e","kty","n"}`).
    /// Its SHA-256, base64url, is the thumbprint.
    public var thumbprintInput: [UInt8] {
        let names = keyType == "EC" ? ["crv", "kty", "x", "y"] : ["e", "kty", "n"]
        return JSON.object(JSONObject(uniqueKeys: names, values: names.map { json[$0] ?? .null })).serialized()
    }
}

extension JSONWebToken {
    /// The one JWS encoder: `claims` as a compact JWS (RFC 7515 §7.1) signed by `key`, with the
    /// header `{"alg", "typ", "kid"}` (`typ` left out when nil), each part base64url without padding.
    public static func sign(claims: JSONObject, type: String?, with key: JSONWebSigningKey) throws(JWTError) -> String {
        var header: JSONObject = ["alg": .string(key.algorithm.rawValue)]
        if let type { header["typ"] = .string(type) }
        header["kid"] = .string(key.keyId)
        let claimBytes = JSON.object(claims).serialized()
        var compact: [UInt8] = []
        compact.reserveCapacity(160 + claimBytes.count * 4 / 3)
        Base64URL.append(JSON.object(header).serialized(), to: &compact)
        compact.append(UInt8(ascii: "."))
        Base64URL.append(claimBytes, to: &compact)
        let signature = try key.signature(of: compact)
        compact.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &compact)
        return String(decoding: compact, as: UTF8.self)
    }
}
