import Foundation

/// The little JSON the domain stores (ACLs, `createdWith`). Written by hand so the
/// text is exact; read with Foundation (the domain does not use the GraphQL engine).
enum JSONText {
    /// The top-level object of `text`, or nil when it is not a JSON object.
    static func object(_ text: String) -> [String: Any]? {
        guard let data = text.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The entries of an ACL's JSON text, `{"key": {"read": true, "write": true}, …}`, read
    /// without Foundation (one per viewer lookup: JSONSerialization was 8% of the server's
    /// CPU). nil for anything outside that shape (other values, `\u` escapes): the caller
    /// then uses ``object(_:)``.
    static func flagEntries(_ text: String) -> [(key: String, read: Bool, write: Bool)]? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = FlagReader(bytes: bytes)
            return reader.entries()
        }
    }

    /// The reader of ``flagEntries(_:)``: a cursor over the text's bytes. A struct with
    /// mutating methods, not nested functions sharing a captured index: those paid for a
    /// dynamic exclusivity check on every byte.
    private struct FlagReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        mutating func entries() -> [(key: String, read: Bool, write: Bool)]? {
            var entries: [(key: String, read: Bool, write: Bool)] = []
            guard expect(0x7B) else { return nil }
            if !expect(0x7D) {
                repeat {
                    guard let key = string(), expect(0x3A), let (read, write) = flags() else { return nil }
                    entries.append((key, read, write))
                } while expect(0x2C)
                guard expect(0x7D) else { return nil }
            }
            skipSpace()
            return i == bytes.count ? entries : nil
        }

        /// `{"read": bool, "write": bool, …}` (other keys with boolean values are ignored).
        mutating func flags() -> (read: Bool, write: Bool)? {
            var read = false, write = false
            guard expect(0x7B) else { return nil }
            if expect(0x7D) { return (read, write) }
            repeat {
                guard let flag = string(), expect(0x3A), let value = boolean() else { return nil }
                if flag == "read" { read = value } else if flag == "write" { write = value }
            } while expect(0x2C)
            return expect(0x7D) ? (read, write) : nil
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        /// A string without `\u` escapes (those are left to Foundation: nil).
        mutating func string() -> String? {
            guard expect(0x22) else { return nil }
            let start = i
            // Most keys have no escapes: their bytes are the string.
            while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x5C, bytes[i] >= 0x20 { i += 1 }
            guard i < bytes.count else { return nil }
            if bytes[i] == 0x22 {
                defer { i += 1 }
                return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            var out = Array(bytes[start..<i])
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                switch byte {
                case 0x22: return String(validating: out, as: UTF8.self)
                case 0x5C:
                    guard i < bytes.count else { return nil }
                    let escaped = bytes[i]
                    i += 1
                    switch escaped {
                    case 0x22, 0x5C, 0x2F: out.append(escaped)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    default: return nil  // \u: left to Foundation
                    }
                case 0..<0x20: return nil
                default: out.append(byte)
                }
            }
            return nil
        }

        mutating func boolean() -> Bool? {
            skipSpace()
            if matches("true") { return true }
            if matches("false") { return false }
            return nil
        }

        /// Consumes `word` if the text continues with it.
        mutating func matches(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - i >= count else { return false }
            for k in 0..<count where bytes[i + k] != word.utf8Start[k] { return false }
            i += count
            return true
        }
    }

    /// A JSON string literal for `text`.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
