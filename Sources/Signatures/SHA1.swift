internal import CCrypto

/// SHA-1 (libcrypto), for looking passwords up in breached-password corpora, which are published
/// as SHA-1 hashes. Not for anything that needs collision resistance.
public enum SHA1 {
    /// The digest length in bytes (20).
    public static let byteCount = 20

    /// Returns the 20-byte SHA-1 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let digest = bytes.withContiguousStorageIfAvailable { hash($0) }
        return digest ?? Array(bytes).withUnsafeBufferPointer { hash($0) }
    }

    /// Returns the 20-byte SHA-1 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash($0) }
    }

    /// Returns the SHA-1 digest of the UTF-8 bytes of `string` as 40 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String {
        Hex.lowercase(digest(string))
    }

    private static func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // One-shot EVP_Digest only fails on allocation failure, which Swift treats as fatal anyway.
        guard EVP_Digest(input.baseAddress, input.count, &out, &length, EVP_sha1(), nil) == 1 else {
            fatalError("libcrypto EVP_Digest failed")
        }
        return Array(out.prefix(Int(length)))
    }
}
