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
        return text.withUTF8 { bytes -> [(key: String, read: Bool, write: Bool)]? in
            var i = 0
            func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 } }
            func expect(_ byte: UInt8) -> Bool {
                skipSpace()
                guard i < bytes.count, bytes[i] == byte else { return false }
                i += 1
                return true
            }
            func string() -> String? {
                guard expect(0x22) else { return nil }
                var out: [UInt8] = []
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
            func boolean() -> Bool? {
                skipSpace()
                for (word, value) in [("true", true), ("false", false)] where bytes.count - i >= word.utf8.count {
                    if zip(word.utf8, bytes[i...]).allSatisfy({ $0 == $1 }) {
                        i += word.utf8.count
                        return value
                    }
                }
                return nil
            }
            /// `{ "a": x, … }` with `member` reading each value; false on a syntax error.
            func members(_ member: (String) -> Bool) -> Bool {
                guard expect(0x7B) else { return false }
                if expect(0x7D) { return true }
                repeat {
                    guard let key = string(), expect(0x3A), member(key) else { return false }
                } while expect(0x2C)
                return expect(0x7D)
            }
            var entries: [(key: String, read: Bool, write: Bool)] = []
            let parsed = members { key in
                var read = false, write = false
                let ok = members { flag in
                    guard let value = boolean() else { return false }
                    if flag == "read" { read = value } else if flag == "write" { write = value }
                    return true
                }
                entries.append((key, read, write))
                return ok
            }
            skipSpace()
            return parsed && i == bytes.count ? entries : nil
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
