/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: attestation objects, COSE keys and
/// authenticator extension outputs. Tags, floating-point numbers and simple values other than
/// false, true and null are not among them and are refused by `CBORDecoder`.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer -1 - n.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5: key/value pairs in their encoded order; keys are unique.
    case map([CBORPair])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// An integer value as `Int`, or nil if this is no integer or it does not fit.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The integer `value` as a CBOR item.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The value of the first pair of a map whose key is `key`; nil for other kinds of item.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value of a map under a text key.
    public subscript(text key: String) -> CBOR? { self[.text(key)] }

    /// The value of a map under an integer key (COSE labels).
    public subscript(int key: Int) -> CBOR? { self[.int(key)] }
}

/// One key/value pair of a CBOR map.
public struct CBORPair: Sendable, Hashable {
    public var key: CBOR
    public var value: CBOR

    public init(_ key: CBOR, _ value: CBOR) {
        self.key = key
        self.value = value
    }
}

extension CBOR {
    /// The definite-length encoding of this item, integers and lengths in their shortest form
    /// (CTAP2's canonical form, with map pairs in the order given).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    private func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let n): Self.head(0, n, into: &out)
        case .negative(let n): Self.head(1, n, into: &out)
        case .bytes(let bytes):
            Self.head(2, UInt64(bytes.count), into: &out)
            out += bytes
        case .text(let text):
            Self.head(3, UInt64(text.utf8.count), into: &out)
            out += text.utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &out)
            for item in items { item.encode(into: &out) }
        case .map(let pairs):
            Self.head(5, UInt64(pairs.count), into: &out)
            for pair in pairs {
                pair.key.encode(into: &out)
                pair.value.encode(into: &out)
            }
        case .bool(let value): out.append(value ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out += [type | 24, UInt8(argument)]
        case 0x100...0xffff: out += [type | 25] + bigEndian(argument, count: 2)
        case 0x1_0000...0xffff_ffff: out += [type | 26] + bigEndian(argument, count: 4)
        default: out += [type | 27] + bigEndian(argument, count: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }
}
