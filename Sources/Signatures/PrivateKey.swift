internal import CCrypto

/// A freshly generated libcrypto key pair (EC P-256 or RSA-2048) that signs with SHA-256: the
/// software authenticator of tests and benchmarks signs WebAuthn assertions with it. The server
/// itself never holds private keys.
///
/// Owns one `EVP_PKEY`, freed in `deinit`; never changed after generation, and every signature
/// makes its own `EVP_MD_CTX`, so any thread may use an instance.
public final class PrivateKey: @unchecked Sendable {
    /// The two kinds of key WebAuthn's ES256 (-7) and RS256 (-257) use.
    public enum Kind: Sendable { case p256, rsa2048 }

    /// The public half, as its raw numbers (big-endian).
    public enum PublicNumbers: Sendable, Equatable {
        /// P-256 affine coordinates, 32 bytes each.
        case p256(x: [UInt8], y: [UInt8])
        /// RSA modulus and public exponent.
        case rsa(modulus: [UInt8], exponent: [UInt8])
    }

    private let key: OpaquePointer
    /// Which kind of key this is.
    public let kind: Kind

    /// Generates a new key of `kind`.
    public init(generating kind: Kind) throws(SignatureError) {
        let type = kind == .p256 ? gatehouse_key_type_ec() : gatehouse_key_type_rsa()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw SignatureError.cryptoFailure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        try PublicKey.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        switch kind {
        case .p256: try PublicKey.check(EVP_PKEY_CTX_set_group_name(context, gatehouse_group_p256()), "EVP_PKEY_CTX_set_group_name")
        case .rsa2048: try PublicKey.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen(context, &made) == 1, let made else {
            ERR_clear_error()
            throw SignatureError.cryptoFailure("EVP_PKEY_keygen")
        }
        self.key = made
        self.kind = kind
    }

    deinit { EVP_PKEY_free(key) }

    /// The public key's numbers (for a COSE key or a JWK).
    public func publicNumbers() throws(SignatureError) -> PublicNumbers {
        switch kind {
        case .p256:
            return .p256(x: try number(gatehouse_param_ec_pub_x(), padTo: 32), y: try number(gatehouse_param_ec_pub_y(), padTo: 32))
        case .rsa2048:
            return .rsa(modulus: try number(gatehouse_param_rsa_n(), padTo: 0), exponent: try number(gatehouse_param_rsa_e(), padTo: 0))
        }
    }

    /// The public half as a `PublicKey`.
    public func publicKey() throws(SignatureError) -> PublicKey {
        switch try publicNumbers() {
        case .p256(let x, let y): try PublicKey.p256(x: x, y: y)
        case .rsa(let modulus, let exponent): try PublicKey.rsa(modulus: modulus, exponent: exponent)
        }
    }

    /// Signs `message` with SHA-256: DER-encoded ECDSA for P-256, PKCS#1 v1.5 for RSA (what
    /// `PublicKey.verifySHA256` verifies).
    public func signSHA256(_ message: [UInt8]) throws(SignatureError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw SignatureError.cryptoFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try PublicKey.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key), "EVP_DigestSignInit")
        var length = 0
        try PublicKey.check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign")
        var signature = [UInt8](repeating: 0, count: length)
        try PublicKey.check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign")
        return Array(signature.prefix(length))
    }

    /// A big-number parameter of the key, big-endian, left-padded with zeros to `padTo` bytes (0: minimal).
    private func number(_ name: UnsafePointer<CChar>, padTo width: Int) throws(SignatureError) -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else {
            ERR_clear_error()
            throw SignatureError.cryptoFailure("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(bn) }
        let size = max(width, Int((BN_num_bits(bn) + 7) / 8))
        var bytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(bn, &bytes, Int32(size)) == Int32(size) else { throw SignatureError.cryptoFailure("BN_bn2binpad") }
        return bytes
    }
}
