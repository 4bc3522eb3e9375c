/// SHA-256 (libcrypto: its assembly uses the CPU's SHA extensions where there are some, about four
/// times libsodium's portable C on an audit entry, twice on a token).
public enum SHA256 {
    /// The digest length in bytes (32).
    public static let byteCount = 32

    private static let algorithm = MessageDigest("SHA256", byteCount: byteCount)

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] { algorithm.digest(bytes) }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] { algorithm.digest(string) }

    /// Returns the SHA-256 digest of the UTF-8 bytes of `string` as 64 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String { Hex.lowercase(digest(string)) }
}
