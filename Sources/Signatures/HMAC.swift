internal import CCrypto

/// HMAC (RFC 2104) through libcrypto.
public enum HMAC {
    /// HMAC-SHA-1 of `message` under `key` (20 bytes): the function of HOTP/TOTP (RFC 4226, RFC 6238).
    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // One-shot HMAC() only fails on allocation failure, which Swift treats as fatal anyway.
        guard CCrypto.HMAC(EVP_sha1(), key, Int32(key.count), message, message.count, &out, &length) != nil else {
            fatalError("libcrypto HMAC failed")
        }
        return Array(out.prefix(Int(length)))
    }

    /// A key for HMAC-SHA-256 of many messages (the signatures of webhook deliveries), made
    /// ready once: each message starts from a copy of the keyed context, where libcrypto's
    /// one-shot `HMAC()` looks the algorithm up and hashes the key again every time (about half
    /// its cost for a webhook's body). Any thread may use it, several at once: the keyed context
    /// is only copied.
    ///
    /// Owns the keyed `EVP_MAC_CTX`; `deinit` frees it.
    public final class SHA256Key: @unchecked Sendable {
        // @unchecked: `context` is written only in init; afterwards only EVP_MAC_CTX_dup reads it
        // (a const argument, which libcrypto allows from several threads at once).
        private let context: OpaquePointer

        /// `key`: any length (one longer than SHA-256's 64-byte block is hashed first, as HMAC says).
        public init(_ key: [UInt8]) {
            guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { fatalError("libcrypto has no HMAC") }
            defer { EVP_MAC_free(mac) }
            guard let context = EVP_MAC_CTX_new(mac) else { fatalError("libcrypto EVP_MAC_CTX_new failed") }
            var parameters = [
                OSSL_PARAM_construct_utf8_string(gatehouse_param_mac_digest(), UnsafeMutablePointer(mutating: gatehouse_digest_sha256()), 0),
                OSSL_PARAM_construct_end(),
            ]
            guard EVP_MAC_init(context, key, key.count, &parameters) == 1 else {
                EVP_MAC_CTX_free(context)
                fatalError("libcrypto EVP_MAC_init failed")
            }
            self.context = context
        }

        deinit { EVP_MAC_CTX_free(context) }

        /// The 32-byte HMAC-SHA-256 of `message` under the key.
        public func mac(_ message: [UInt8]) -> [UInt8] {
            // These fail only when memory runs out, which Swift treats as fatal anyway.
            guard let copy = EVP_MAC_CTX_dup(context) else { fatalError("libcrypto EVP_MAC_CTX_dup failed") }
            defer { EVP_MAC_CTX_free(copy) }
            var out = [UInt8](repeating: 0, count: 32)
            var length = 0
            guard EVP_MAC_update(copy, message, message.count) == 1, EVP_MAC_final(copy, &out, &length, out.count) == 1 else {
                fatalError("libcrypto HMAC failed")
            }
            return Array(out.prefix(length))
        }
    }
}
