internal import CSodium

/// Cryptographically secure random bytes, session tokens and object ids (libsodium `randombytes`).
public enum SecureRandom {
    /// The alphabet of `objectId()`: `[A-Za-z0-9]`, 62 characters.
    public static let objectIdAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// The number of characters of `objectId()`.
    public static let objectIdLength = 10

    /// Returns `count` random bytes from `randombytes_buf`.
    ///
    /// - Precondition: `count >= 0`.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes: negative count")
        SodiumLibrary.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress, count > 0 {
                randombytes_buf(base, count)
            }
            initialized = count
        }
    }

    /// Returns a new session token: `"r:"` followed by 32 lowercase hex characters (16 random bytes).
    ///
    /// The same shape as Parse Server's session tokens.
    public static func sessionToken() -> String {
        var raw = bytes(16)
        defer { wipe(&raw) }
        return "r:" + hex(raw)
    }

    /// Returns a new object id: 10 characters drawn uniformly from `[A-Za-z0-9]`.
    ///
    /// Each character comes from `randombytes_uniform(62)`, which rejects out-of-range samples,
    /// so there is no modulo bias.
    public static func objectId() -> String {
        string(length: objectIdLength, alphabet: objectIdAlphabet)
    }

    /// `length` characters drawn uniformly from `alphabet` (`randombytes_uniform`, no modulo bias).
    public static func string(length: Int, alphabet: [UInt8]) -> String {
        SodiumLibrary.ensureInitialized()
        let upper = UInt32(alphabet.count)
        let chars = (0..<length).map { _ in alphabet[Int(randombytes_uniform(upper))] }
        return String(decoding: chars, as: UTF8.self)
    }

    /// A token for a link in mail (password reset, email verification): 32 random bytes (256
    /// bits) as base64url without padding, 43 characters that need no escaping in a URL.
    public static func linkToken() -> String {
        var raw = bytes(32)
        defer { wipe(&raw) }
        var out = [CChar](repeating: 0, count: sodium_base64_encoded_len(raw.count, sodium_base64_VARIANT_URLSAFE_NO_PADDING))
        raw.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                _ = sodium_bin2base64(output.baseAddress!, output.count, input.baseAddress!, input.count, sodium_base64_VARIANT_URLSAFE_NO_PADDING)
            }
        }
        defer { wipe(&out) }
        return String(cString: out)
    }

    /// `count` random bytes as lowercase hex (identifiers such as a mail's Message-ID).
    public static func hex(count: Int) -> String {
        hex(bytes(count))
    }

    /// Lowercase hex of `bytes`, through libsodium's constant-time `sodium_bin2hex`.
    static func hex(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        var out = [CChar](repeating: 0, count: bytes.count * 2 + 1)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                _ = sodium_bin2hex(output.baseAddress!, output.count, input.baseAddress!, input.count)
            }
        }
        defer { wipe(&out) }
        return String(decoding: out.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Zeroes a buffer that held secret bytes (best effort: Swift may have made copies).
func wipe<T>(_ buffer: inout [T]) {
    buffer.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress, raw.count > 0 { sodium_memzero(base, raw.count) }
    }
}
