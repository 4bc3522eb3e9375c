/// SHA-1 (libcrypto), for looking passwords up in breached-password corpora, which are published
/// as SHA-1 hashes. Not for anything that needs collision resistance.
public enum SHA1 {
    /// The digest length in bytes (20).
    public static let byteCount = 20

    private static let algorithm = MessageDigest("SHA1", byteCount: byteCount)

    /// Returns the 20-byte SHA-1 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] { algorithm.digest(bytes) }

    /// Returns the 20-byte SHA-1 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] { algorithm.digest(string) }

    /// Returns the SHA-1 digest of the UTF-8 bytes of `string` as 40 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String { Hex.lowercase(digest(string)) }
}
