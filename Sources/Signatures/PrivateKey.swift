internal import CCrypto

/// A libcrypto key pair (EC P-256 or RSA-2048) that signs with SHA-256: the server's access-token
/// signing keys (JWS ES256 and RS256), and the software authenticator of tests and benchmarks,
/// which signs WebAuthn assertions with it. Generated, or read back from its DER encoding
/// (``derEncoded()``), which is what a key's owner seals for storage.
///
/// Owns one `EVP_PKEY` and one `EVP_MD_CTX` set up to sign with it (``signer``), both freed in
/// `deinit`; neither is changed after the key is made. Every signature signs with its own copy of
/// that context, and copying only reads the original, so any thread may use an instance.
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
    /// A SHA-256 signing context over `key`, made once: a signature copies it instead of setting
    /// one up (fetching the digest and the signature algorithm), the costly part of a signature
    /// beside the arithmetic.
    private let signer: OpaquePointer
    /// The longest signature of `key`, in bytes (DER ECDSA: 72; RSA: the modulus size).
    private let signatureSize: Int
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
        do { (signer, signatureSize) = try Self.signer(made) } catch {
            EVP_PKEY_free(made)
            throw error
        }
        self.key = made
        self.kind = kind
    }

    /// Reads a key from its DER encoding (what ``derEncoded()`` wrote: SEC 1 `ECPrivateKey` for
    /// P-256, PKCS #1 `RSAPrivateKey` for RSA; PKCS #8 is accepted too). Anything else, another
    /// curve or an RSA modulus of another size included, is refused with
    /// ``SignatureError/invalidKey(_:)``; the description never quotes key material.
    public init(der: [UInt8]) throws(SignatureError) {
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            ERR_clear_error()
            throw SignatureError.invalidKey("not a DER-encoded private key")
        }
        let kind: Kind
        if EVP_PKEY_is_a(decoded, gatehouse_key_type_ec()) == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            let isP256 = EVP_PKEY_get_group_name(decoded, &name, name.count, &length) == 1
                && String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    == String(cString: gatehouse_group_p256())
            ERR_clear_error()
            guard isP256 else {
                EVP_PKEY_free(decoded)
                throw SignatureError.invalidKey("an EC private key on another curve than P-256")
            }
            kind = .p256
        } else if EVP_PKEY_is_a(decoded, gatehouse_key_type_rsa()) == 1 {
            let bits = EVP_PKEY_get_bits(decoded)
            guard bits == 2048 else {
                EVP_PKEY_free(decoded)
                throw SignatureError.invalidKey("an RSA private key of \(bits) bits (2048 expected)")
            }
            kind = .rsa2048
        } else {
            EVP_PKEY_free(decoded)
            throw SignatureError.invalidKey("a private key that is neither EC P-256 nor RSA")
        }
        do { (signer, signatureSize) = try Self.signer(decoded) } catch {
            EVP_PKEY_free(decoded)
            throw error
        }
        self.key = decoded
        self.kind = kind
    }

    /// A SHA-256 signing context over `key` and the longest signature it makes.
    private static func signer(_ key: OpaquePointer) throws(SignatureError) -> (OpaquePointer, Int) {
        guard let context = EVP_MD_CTX_new() else { throw SignatureError.cryptoFailure("EVP_MD_CTX_new") }
        do { try PublicKey.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key), "EVP_DigestSignInit") } catch {
            EVP_MD_CTX_free(context)
            throw error
        }
        return (context, Int(EVP_PKEY_get_size(key)))
    }

    deinit {
        EVP_MD_CTX_free(signer)
        EVP_PKEY_free(key)
    }

    /// The key's DER encoding (SEC 1 `ECPrivateKey` for P-256, PKCS #1 `RSAPrivateKey` for RSA),
    /// which ``init(der:)`` reads back. It is the private key itself: seal it before it leaves memory.
    public func derEncoded() throws(SignatureError) -> [UInt8] {
        let length = i2d_PrivateKey(key, nil)
        guard length > 0 else {
            ERR_clear_error()
            throw SignatureError.cryptoFailure("i2d_PrivateKey")
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PrivateKey(key, &cursor)
        }
        guard written == length else {
            ERR_clear_error()
            throw SignatureError.cryptoFailure("i2d_PrivateKey")
        }
        return der
    }

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
        try PublicKey.check(EVP_MD_CTX_copy_ex(context, signer), "EVP_MD_CTX_copy_ex")
        var length = signatureSize
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
