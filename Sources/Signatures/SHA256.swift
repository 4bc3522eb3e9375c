internal import CCrypto

/// SHA-256 (libcrypto: its assembly uses the CPU's SHA extensions where there are some, about four
/// times libsodium's portable C on an audit entry, twice on a token).
public enum SHA256 {
    /// The digest length in bytes (32).
    public static let byteCount = 32

    /// The algorithm, fetched once: `EVP_sha256()` would fetch it from the provider again on every digest.
    nonisolated(unsafe) private static let algorithm: OpaquePointer = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("libcrypto has no SHA256") }
        return md
    }()

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let digest = bytes.withContiguousStorageIfAvailable { hash($0) }
        return digest ?? Array(bytes).withUnsafeBufferPointer { hash($0) }
    }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash($0) }
    }

    /// Returns the SHA-256 digest of the UTF-8 bytes of `string` as 64 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String {
        Hex.lowercase(digest(string))
    }

    private static func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { out, initialized in
            // EVP_Digest fails only when it cannot allocate its context, which Swift treats as fatal anyway.
            guard EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, algorithm, nil) == 1 else {
                fatalError("libcrypto EVP_Digest failed")
            }
            initialized = byteCount
        }
    }
}

/// Lowercase hexadecimal, without a branch on the bytes' values (digests of secrets go through it).
public enum Hex {
    /// `bytes` as lowercase hexadecimal, two digits per byte.
    public static func lowercase(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digit(byte >> 4)
                out[2 * index + 1] = digit(byte & 15)
            }
            return bytes.count * 2
        }
    }

    /// `0`–`9` for 0–9 and `a`–`f` for 10–15, by arithmetic: `(n - 10) >> 8` is all ones below 10.
    private static func digit(_ nibble: UInt8) -> UInt8 {
        let n = UInt32(nibble)
        return UInt8(truncatingIfNeeded: n &+ 87 &+ (((n &- 10) >> 8) & ~UInt32(38)))
    }
}
