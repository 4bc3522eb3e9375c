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

    /// HMAC-SHA-256 of `message` under `key` (32 bytes): the signature of webhook deliveries.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard CCrypto.HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &out, &length) != nil else {
            fatalError("libcrypto HMAC failed")
        }
        return Array(out.prefix(Int(length)))
    }
}
