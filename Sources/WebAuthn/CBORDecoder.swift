/// A strict CBOR decoder for what WebAuthn sends (RFC 8949 §5.3.1's "well-formed and valid",
/// narrowed): definite lengths only; major types 0-5 and the simple values false, true and null
/// (no tags, floats, `undefined` or other simple values); text strings must be valid UTF-8;
/// a map refuses a key that repeats; nesting is limited to `maxDepth`. Lengths are checked
/// against the bytes left before anything is allocated, so an input can make the decoder
/// allocate no more than a small multiple of its own size.
public struct CBORDecoder: Sendable {
    /// Deepest nesting of arrays and maps accepted (a COSE key or an attestation object needs 3).
    public var maxDepth: Int

    public init(maxDepth: Int = 16) {
        self.maxDepth = maxDepth
    }

    /// Decodes exactly one item filling all of `bytes`.
    public func decode(_ bytes: [UInt8]) throws(WebAuthnError) -> CBOR {
        let (item, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw WebAuthnError.malformedCBOR("\(bytes.count - end) bytes after the item") }
        return item
    }

    /// Decodes one item starting at `start`; returns it and the offset just past it (for data
    /// that continues after a CBOR item, as attested credential data does).
    public func decodePrefix(_ bytes: [UInt8], from start: Int) throws(WebAuthnError) -> (CBOR, Int) {
        var reader = Reader(bytes: bytes, offset: start, maxDepth: maxDepth)
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let maxDepth: Int

        var remaining: Int { bytes.count - offset }

        mutating func item(depth: Int) throws(WebAuthnError) -> CBOR {
            guard remaining > 0 else { throw WebAuthnError.malformedCBOR("the input ends inside an item") }
            let initial = bytes[offset]
            offset += 1
            let major = initial >> 5
            let info = initial & 0x1f
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw WebAuthnError.malformedCBOR("unsupported simple value or float (0x\(String(initial, radix: 16)))")
                }
            }
            if major == 6 { throw WebAuthnError.malformedCBOR("tags are not supported") }
            let argument = try self.argument(info)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2, 3:
                guard argument <= UInt64(remaining) else { throw WebAuthnError.malformedCBOR("a string longer than the input") }
                let slice = Array(bytes[offset..<offset + Int(argument)])
                offset += Int(argument)
                if major == 2 { return .bytes(slice) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw WebAuthnError.malformedCBOR("a text string that is not UTF-8") }
                return .text(text)
            case 4:
                // Each item takes at least one byte, so a count above the bytes left cannot be right.
                guard depth < maxDepth else { throw WebAuthnError.malformedCBOR("nested deeper than \(maxDepth)") }
                guard argument <= UInt64(remaining) else { throw WebAuthnError.malformedCBOR("an array longer than the input") }
                var items: [CBOR] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            default:
                guard depth < maxDepth else { throw WebAuthnError.malformedCBOR("nested deeper than \(maxDepth)") }
                guard argument <= UInt64(remaining / 2) else { throw WebAuthnError.malformedCBOR("a map longer than the input") }
                var pairs: [CBORPair] = []
                pairs.reserveCapacity(Int(argument))
                var keys = Set<CBOR>()
                for _ in 0..<argument {
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key).inserted else { throw WebAuthnError.malformedCBOR("a map key repeats") }
                    pairs.append(CBORPair(key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            }
        }

        /// The head's argument: the value itself below 24, else the 1, 2, 4 or 8 bytes that follow.
        mutating func argument(_ info: UInt8) throws(WebAuthnError) -> UInt64 {
            let count: Int
            switch info {
            case 0..<24: return UInt64(info)
            case 24: count = 1
            case 25: count = 2
            case 26: count = 4
            case 27: count = 8
            case 31: throw WebAuthnError.malformedCBOR("indefinite lengths are not supported")
            default: throw WebAuthnError.malformedCBOR("reserved additional information \(info)")
            }
            guard remaining >= count else { throw WebAuthnError.malformedCBOR("the input ends inside an item") }
            var value: UInt64 = 0
            for byte in bytes[offset..<offset + count] { value = value << 8 | UInt64(byte) }
            offset += count
            return value
        }
    }
}
