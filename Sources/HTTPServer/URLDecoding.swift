/// Percent-decoding for request targets. Total functions: malformed escapes are
/// kept literally and invalid UTF-8 becomes U+FFFD, so bad input cannot trap.
enum URLDecoding {
    /// Splits a raw request target (`/p/a?x=1`) into raw path and raw query.
    static func split(target: [UInt8]) -> (path: [UInt8], query: [UInt8]) {
        var target = target[...]
        // A fragment is never sent by conforming clients; ignore one if present.
        if let hash = target.firstIndex(of: UInt8(ascii: "#")) {
            target = target[..<hash]
        }
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else {
            return (Array(target), [])
        }
        return (Array(target[..<mark]), Array(target[target.index(after: mark)...]))
    }

    /// Decodes `%XX` escapes; with `plusAsSpace` also `+` (form encoding, for queries).
    static func decode<C: Collection<UInt8>>(_ bytes: C, plusAsSpace: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex,
                       let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `a=1&b=x+y&flag` into ordered, decoded items; empty pieces are skipped.
    static func queryItems(_ rawQuery: String) -> [HTTPRequest.QueryItem] {
        var items: [HTTPRequest.QueryItem] = []
        for piece in rawQuery.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                items.append(.init(
                    name: decode(piece[..<equals], plusAsSpace: true),
                    value: decode(piece[piece.index(after: equals)...], plusAsSpace: true)))
            } else {
                items.append(.init(name: decode(piece, plusAsSpace: true), value: ""))
            }
        }
        return items
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
