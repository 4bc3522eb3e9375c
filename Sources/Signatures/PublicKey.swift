internal import CCrypto

/// A libcrypto public key (RSA or EC P-256) that verifies SHA-256 signatures (JWS RS256/ES256,
/// WebAuthn COSE -257/-7).
///
/// Owns one `EVP_PKEY`, freed in `deinit`. The key is never changed after `init`, and libcrypto
/// allows concurrent read-only use of an `EVP_PKEY`: every verification makes its own
/// `EVP_MD_CTX`, so any thread may use an instance.
public final class PublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Smallest accepted RSA modulus, in bits.
    public static let minimumRSABits = 2048
    /// Largest accepted RSA modulus, in bits: libcrypto's own ceiling for RSA.
    public static let maximumRSABits = 16384
    /// Largest accepted RSA public exponent, in bits (libcrypto's limit for moduli above 3072 bits).
    public static let maximumRSAExponentBits = 64

    /// An RSA public key from its big-endian modulus and exponent. The modulus must have
    /// ``minimumRSABits`` to ``maximumRSABits`` bits and be odd, the exponent odd, above 1 and of
    /// at most ``maximumRSAExponentBits`` bits.
    ///
    /// libcrypto's public key check is never run on RSA keys: for RSA it includes a Miller–Rabin
    /// test of the modulus (full-size modular exponentiations), work that a stranger's key must
    /// not be able to cause. The checks above, on the bytes before libcrypto sees them, are what
    /// verifying signatures needs; a modulus that is not a product of two primes only hurts
    /// whoever made it.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(SignatureError) -> PublicKey {
        let bits = bitLength(modulus)
        guard bits >= minimumRSABits else {
            throw SignatureError.invalidKey("RSA modulus of \(bits) bits (at least \(minimumRSABits) required)")
        }
        guard bits <= maximumRSABits else {
            throw SignatureError.invalidKey("RSA modulus of \(bits) bits (at most \(maximumRSABits) accepted)")
        }
        guard modulus.last! & 1 == 1 else { throw SignatureError.invalidKey("the RSA modulus is even") }
        guard exponent.last.map({ $0 & 1 == 1 }) == true, bitLength(exponent) > 1 else {
            throw SignatureError.invalidKey("the RSA exponent is not odd and above 1")
        }
        // Each bit of the exponent costs a modular multiplication per verification; real keys use 65537.
        guard bitLength(exponent) <= maximumRSAExponentBits else {
            throw SignatureError.invalidKey("an RSA exponent above \(maximumRSAExponentBits) bits")
        }
        // The builder references the BIGNUMs until OSSL_PARAM_BLD_to_param copies them.
        let n = BN_bin2bn(modulus, Int32(modulus.count), nil)
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        defer {
            BN_free(n)
            BN_free(e)
        }
        guard let n, let e else { throw SignatureError.cryptoFailure("BN_bin2bn") }
        return try make(type: gatehouse_key_type_rsa(), refusal: "libcrypto refused the RSA public key", fullCheck: false) { builder throws(SignatureError) in
            try check(OSSL_PARAM_BLD_push_BN(builder, gatehouse_param_rsa_n(), n), "OSSL_PARAM_BLD_push_BN")
            try check(OSSL_PARAM_BLD_push_BN(builder, gatehouse_param_rsa_e(), e), "OSSL_PARAM_BLD_push_BN")
        }
    }

    /// The number of significant bits of a big-endian unsigned number (leading zero bytes and bits not counted).
    public static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// An EC P-256 public key from its 32-byte affine coordinates; the point must lie on the curve.
    /// `fullCheck` false skips libcrypto's public key check (a scalar multiplication), for a key
    /// checked in full once already and read back from storage.
    public static func p256(x: [UInt8], y: [UInt8], fullCheck: Bool = true) throws(SignatureError) -> PublicKey {
        // The SEC 1 uncompressed point, in memory that outlives the builder's reference to it.
        let point = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 65)
        defer { point.deallocate() }
        _ = point.initialize(from: [0x04] + x + y)
        let key = try make(type: gatehouse_key_type_ec(), refusal: "the EC point is not on P-256", fullCheck: fullCheck) { builder throws(SignatureError) in
            try check(
                OSSL_PARAM_BLD_push_utf8_string(builder, gatehouse_param_group(), gatehouse_group_p256(), 0),
                "OSSL_PARAM_BLD_push_utf8_string")
            try check(
                OSSL_PARAM_BLD_push_octet_string(builder, gatehouse_param_public_key(), point.baseAddress, point.count),
                "OSSL_PARAM_BLD_push_octet_string")
        }
        return key
    }

    private init(_ key: OpaquePointer) { self.key = key }

    /// What building a key asked of libcrypto, as reported to ``observer``.
    public enum Work: Sendable, Equatable {
        /// A key was made from its parameters (`EVP_PKEY_fromdata`).
        case built
        /// libcrypto's public key check ran on it (`EVP_PKEY_public_check`).
        case checked
    }

    /// Called with each step of libcrypto work of the keys built in the current task: a hook for
    /// tests that show a key was refused before libcrypto saw it, or built without the check.
    /// Bound with `PublicKey.$observer.withValue(_:operation:)`; nil (nothing called) otherwise.
    @TaskLocal public static var observer: (@Sendable (Work) -> Void)?

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is a valid signature of `message` under this key with SHA-256: RSA
    /// PKCS#1 v1.5 for an RSA key, DER-encoded ECDSA for an EC key.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) throws(SignatureError) -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw SignatureError.cryptoFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try Self.check(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key), "EVP_DigestVerifyInit")
        // 1 verified, 0 did not; below 0 the signature could not even be parsed: also not verified.
        let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// Converts a JWS ES256 signature (r || s, 32 bytes each) to the DER `ECDSA-Sig-Value` libcrypto verifies.
    public static func derECDSASignature(raw: [UInt8]) throws(SignatureError) -> [UInt8] {
        precondition(raw.count == 64)
        guard let signature = ECDSA_SIG_new() else { throw SignatureError.cryptoFailure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = raw[32...].withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            // On success ECDSA_SIG_set0 owns r and s; otherwise they are ours to free.
            BN_free(r)
            BN_free(s)
            throw SignatureError.cryptoFailure("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw SignatureError.cryptoFailure("i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw SignatureError.cryptoFailure("i2d_ECDSA_SIG") }
        return der
    }

    /// Converts a DER `ECDSA-Sig-Value` (what ``PrivateKey/signSHA256(_:)`` makes with a P-256 key)
    /// to the JWS ES256 form: r || s, each left-padded to 32 bytes.
    public static func rawECDSASignature(der: [UInt8]) throws(SignatureError) -> [UInt8] {
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            ERR_clear_error()
            throw SignatureError.invalidKey("not a DER ECDSA signature")
        }
        defer { ECDSA_SIG_free(decoded) }
        var raw = [UInt8](repeating: 0, count: 64)
        // Both numbers are below the P-256 group order, so 32 bytes always hold them.
        let rWritten = raw.withUnsafeMutableBufferPointer { BN_bn2binpad(ECDSA_SIG_get0_r(decoded), $0.baseAddress, 32) }
        let sWritten = raw.withUnsafeMutableBufferPointer { BN_bn2binpad(ECDSA_SIG_get0_s(decoded), $0.baseAddress! + 32, 32) }
        guard rWritten == 32, sWritten == 32 else { throw SignatureError.invalidKey("an ECDSA signature wider than P-256's") }
        return raw
    }

    /// Builds a public key of `type` (a `gatehouse_key_type_…` name) from the parameters `fill`
    /// pushes and, when `fullCheck` is true, runs libcrypto's public key check on it (for P-256: the
    /// point is on the curve and of the group's order, one scalar multiplication); `refusal` says
    /// why either failed. Decoding a P-256 point refuses one off the curve even without the check.
    /// Each step is reported to ``observer``.
    private static func make(
        type: UnsafePointer<CChar>, refusal: String, fullCheck: Bool, _ fill: (OpaquePointer) throws(SignatureError) -> Void
    ) throws(SignatureError) -> PublicKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw SignatureError.cryptoFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        try fill(builder)
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else { throw SignatureError.cryptoFailure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw SignatureError.cryptoFailure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init")
        observer?(.built)
        var made: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &made, gatehouse_evp_pkey_public_key_selection(), parameters) == 1, let made else {
            ERR_clear_error()
            throw SignatureError.invalidKey(refusal)
        }
        let key = PublicKey(made)
        guard fullCheck else { return key }
        guard let checker = EVP_PKEY_CTX_new_from_pkey(nil, made, nil) else { throw SignatureError.cryptoFailure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(checker) }
        observer?(.checked)
        guard EVP_PKEY_public_check(checker) == 1 else {
            ERR_clear_error()
            throw SignatureError.invalidKey(refusal)
        }
        return key
    }

    /// The one error funnel (also `PrivateKey`'s): libcrypto's 1 is success; anything else clears its error queue and throws.
    static func check(_ result: Int32, _ function: String) throws(SignatureError) {
        guard result == 1 else {
            ERR_clear_error()
            throw SignatureError.cryptoFailure(function)
        }
    }
}
