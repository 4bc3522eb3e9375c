public import Signatures

/// A credential public key in COSE form (RFC 9053, WebAuthn §5.8.5): EC2 P-256 with ES256 (-7)
/// or RSA with RS256 (-257) and a modulus of ``rsaModulusBits``. Other key types, curves,
/// algorithms and sizes are refused before libcrypto sees the key.
public struct COSEKey: Sendable {
    /// The two COSE algorithms accepted.
    public enum Algorithm: Int, Sendable, CaseIterable {
        case es256 = -7
        case rs256 = -257
    }

    /// The key's algorithm (its `alg`, 3).
    public let algorithm: Algorithm
    /// The key, ready to verify.
    public let publicKey: PublicKey
    /// The CBOR encoding the key was read from: what a store keeps and reads back with `init(encoded:)`.
    public let encoded: [UInt8]

    /// RSA modulus sizes accepted, in bits: authenticators make 2048-bit keys, and a larger
    /// modulus only makes every signature check cost more.
    public static let rsaModulusBits = 2048...4096

    /// Reads a key from its CBOR encoding (exactly one item). `fullCheck` false skips libcrypto's
    /// public key check of a P-256 key (a scalar multiplication), only for a key checked in full
    /// before: one a store kept from a registration. RSA keys never get that check (see
    /// `PublicKey.rsa(modulus:exponent:)`).
    public init(encoded: [UInt8], fullCheck: Bool = true) throws(WebAuthnError) {
        try self.init(CBORDecoder().decode(encoded), encoded: encoded, fullCheck: fullCheck)
    }

    /// Reads a key from a decoded CBOR map, `encoded` being its encoding.
    init(_ item: CBOR, encoded: [UInt8], fullCheck: Bool = true) throws(WebAuthnError) {
        guard case .map = item else { throw WebAuthnError.unsupportedKey("not a map") }
        guard let keyType = item[int: 1]?.intValue else { throw WebAuthnError.unsupportedKey("no key type (1)") }
        guard let alg = item[int: 3]?.intValue else { throw WebAuthnError.unsupportedKey("no algorithm (3)") }
        guard let algorithm = Algorithm(rawValue: alg) else { throw WebAuthnError.unsupportedKey("algorithm \(alg)") }
        switch (keyType, algorithm) {
        case (2, .es256):
            guard item[int: -1]?.intValue == 1 else { throw WebAuthnError.unsupportedKey("EC2 curve other than P-256 (1)") }
            guard case .bytes(let x)? = item[int: -2], x.count == 32, case .bytes(let y)? = item[int: -3], y.count == 32 else {
                throw WebAuthnError.unsupportedKey("EC2 coordinates are not two 32-byte strings")
            }
            publicKey = try Self.checked { () throws(SignatureError) in try PublicKey.p256(x: x, y: y, fullCheck: fullCheck) }
        case (3, .rs256):
            guard case .bytes(let n)? = item[int: -1], !n.isEmpty, case .bytes(let e)? = item[int: -2], !e.isEmpty else {
                throw WebAuthnError.unsupportedKey("RSA modulus and exponent are not byte strings")
            }
            guard e.count <= 8 else { throw WebAuthnError.unsupportedKey("an RSA exponent longer than 8 bytes") }
            let bits = PublicKey.bitLength(n)
            guard Self.rsaModulusBits.contains(bits) else {
                throw WebAuthnError.unsupportedKey(
                    "an RSA modulus of \(bits) bits (\(Self.rsaModulusBits.lowerBound) to \(Self.rsaModulusBits.upperBound) accepted)")
            }
            publicKey = try Self.checked { () throws(SignatureError) in try PublicKey.rsa(modulus: n, exponent: e) }
        default:
            throw WebAuthnError.unsupportedKey("key type \(keyType) with algorithm \(alg)")
        }
        self.algorithm = algorithm
        self.encoded = encoded
    }

    /// libcrypto's refusal of a key as `invalidKey`.
    private static func checked(_ make: () throws(SignatureError) -> PublicKey) throws(WebAuthnError) -> PublicKey {
        do { return try make() } catch { throw WebAuthnError.invalidKey(error.description) }
    }

    /// The COSE map of a P-256 or RSA public key (for the software authenticator and tests).
    public static func encode(_ numbers: PrivateKey.PublicNumbers) -> [UInt8] {
        switch numbers {
        case .p256(let x, let y):
            CBOR.map([
                CBORPair(.int(1), .int(2)), CBORPair(.int(3), .int(Algorithm.es256.rawValue)),
                CBORPair(.int(-1), .int(1)), CBORPair(.int(-2), .bytes(x)), CBORPair(.int(-3), .bytes(y)),
            ]).encoded()
        case .rsa(let modulus, let exponent):
            CBOR.map([
                CBORPair(.int(1), .int(3)), CBORPair(.int(3), .int(Algorithm.rs256.rawValue)),
                CBORPair(.int(-1), .bytes(modulus)), CBORPair(.int(-2), .bytes(exponent)),
            ]).encoded()
        }
    }

    /// Whether `signature` is this key's SHA-256 signature of `message` (WebAuthn's ES256
    /// signatures are already DER-encoded; RS256's are PKCS#1 v1.5).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        (try? publicKey.verifySHA256(signature: signature, message: message)) ?? false
    }
}
