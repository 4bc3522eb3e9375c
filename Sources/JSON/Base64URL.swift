/// Strict base64url without padding (RFC 4648 §5), as JWS, JWK and the JSON forms of WebAuthn
/// structures use it.
public enum Base64URL {
    /// Decodes `text`; nil when it holds padding, a character outside the URL-safe alphabet, a
    /// length no encoding produces (4n + 1), or non-zero unused bits in its last character (so
    /// each byte string has exactly one accepted encoding).
    public static func decode(_ text: Substring) -> [UInt8]? { decode(Array(text.utf8)[...]) }

    /// Decodes base64url `characters` (ASCII bytes), as ``decode(_:)-(Substring)``.
    public static func decode(_ characters: ArraySlice<UInt8>) -> [UInt8]? {
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }
        return bytes
    }

    /// Decodes `text` (see `decode(_: Substring)`).
    public static func decode(_ text: String) -> [UInt8]? { decode(text[...]) }

    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        encode(Array(bytes))
    }

    /// Encodes `bytes` without padding. Concrete, so that a caller in another module (a JWT's
    /// signer, whose parts are a kilobyte) runs a loop compiled for bytes, not a generic call per byte.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        alphabet.withUnsafeBufferPointer { alphabet in
            for byte in bytes {
                buffer = (buffer << 8) | UInt32(byte)
                bits += 8
                while bits >= 6 {
                    bits -= 6
                    out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3f)])
                }
                buffer &= (1 << UInt32(bits)) - 1
            }
            if bits > 0 { out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3f)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
