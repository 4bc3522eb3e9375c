internal import CSodium

/// SHA-256 (libsodium `crypto_hash_sha256`).
public enum SHA256 {
    /// The digest length in bytes (32).
    public static let byteCount = 32

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        SodiumLibrary.ensureInitialized()
        let digest = bytes.withContiguousStorageIfAvailable { hash($0) }
        return digest ?? Array(bytes).withUnsafeBufferPointer { hash($0) }
    }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] {
        digest(string.utf8)
    }

    /// Returns the SHA-256 digest of the UTF-8 bytes of `string` as 64 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String {
        SecureRandom.hex(digest(string))
    }

    private static func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { out, initialized in
            // crypto_hash_sha256 always returns 0; a NULL input with length 0 is allowed.
            _ = crypto_hash_sha256(out.baseAddress!, input.baseAddress, UInt64(input.count))
            initialized = byteCount
        }
    }
}
