internal import CCrypto

/// One libcrypto digest algorithm, fetched once (`EVP_sha256()` and its kind would fetch it from
/// the provider again on every digest): what ``SHA256`` and ``SHA1`` share.
struct MessageDigest: @unchecked Sendable {
    /// The digest length in bytes.
    let byteCount: Int
    /// The fetched `EVP_MD`: read-only once fetched, so shared by every thread.
    private let algorithm: OpaquePointer

    init(_ name: String, byteCount: Int) {
        guard let algorithm = EVP_MD_fetch(nil, name, nil) else { fatalError("libcrypto has no \(name)") }
        self.algorithm = algorithm
        self.byteCount = byteCount
    }

    func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let digest = bytes.withContiguousStorageIfAvailable { hash($0) }
        return digest ?? Array(bytes).withUnsafeBufferPointer { hash($0) }
    }

    /// The digest of the UTF-8 bytes of `string`.
    func digest(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash($0) }
    }

    private func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
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
