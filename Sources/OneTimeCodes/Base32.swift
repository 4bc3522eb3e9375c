/// Base32 (RFC 4648 §6), the encoding of TOTP secrets in `otpauth://` URIs and authenticator apps.
public enum Base32 {
    /// The RFC 4648 alphabet, upper case.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The bytes `text` encodes; nil when it is not base32. Letters may be of either case and the
    /// `=` padding may be left out; anything else is refused: characters outside the alphabet,
    /// padding that is not at the end or not to a multiple of 8, a length no encoding has (1, 3
    /// or 6 characters in the last group), and bits left over that are not zero.
    public static func decode(_ text: String) -> [UInt8]? {
        var characters = Array(text.utf8)
        if let firstPad = characters.firstIndex(of: UInt8(ascii: "=")) {
            guard characters[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }), characters.count % 8 == 0 else { return nil }
            let padding = characters.count - firstPad
            guard [0, 1, 3, 4, 6].contains(padding) else { return nil }
            characters.removeLast(padding)
        }
        guard [0, 2, 4, 5, 7].contains(characters.count % 8) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // The unused low bits of the last character must be zero (one encoding per byte string).
        guard buffer == 0 else { return nil }
        return out
    }

    /// `bytes` as upper-case base32 without padding (as authenticator apps show secrets).
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
