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
        bytes.withUnsafeBufferPointer { input in
            let count = encodedCount(input.count)
            guard count > 0 else { return "" }
            return String(unsafeUninitializedCapacity: count) { output in
                write(input, to: output.baseAddress!)
                return count
            }
        }
    }

    /// Appends the encoding of `bytes`, without padding, to `output`.
    public static func append(_ bytes: [UInt8], to output: inout [UInt8]) {
        let start = output.count, count = encodedCount(bytes.count)
        output.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { write(input, to: $0.baseAddress! + start) }
        }
    }

    /// How many characters `byteCount` bytes encode to, without padding.
    static func encodedCount(_ byteCount: Int) -> Int { (byteCount * 4 + 2) / 3 }

    /// Writes the ``encodedCount(_:)`` characters of `input` at `output`: three bytes to four
    /// characters at a time, then the two or three characters of a last one or two bytes.
    private static func write(_ input: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) {
        alphabet.withUnsafeBufferPointer { alphabet in
            let count = input.count
            var index = 0, written = 0
            while index + 3 <= count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[written] = alphabet[Int(group >> 18)]
                output[written + 1] = alphabet[Int(group >> 12 & 0x3f)]
                output[written + 2] = alphabet[Int(group >> 6 & 0x3f)]
                output[written + 3] = alphabet[Int(group & 0x3f)]
                index += 3
                written += 4
            }
            guard index < count else { return }
            let last = UInt32(input[index]) << 16 | (index + 1 < count ? UInt32(input[index + 1]) << 8 : 0)
            output[written] = alphabet[Int(last >> 18)]
            output[written + 1] = alphabet[Int(last >> 12 & 0x3f)]
            if index + 1 < count { output[written + 2] = alphabet[Int(last >> 6 & 0x3f)] }
        }
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
