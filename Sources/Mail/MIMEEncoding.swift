import Foundation

/// The encodings a message needs: quoted-printable bodies (RFC 2045 §6.7), RFC 2047 encoded
/// words for non-ASCII header text, header folding (RFC 5322 §2.2.3) and the Date format.
enum MIMEEncoding {
    /// Header lines are folded to at most this many characters (RFC 5322 §2.1.1).
    static let lineLimit = 78

    /// `text` (lines separated by "\n") as quoted-printable lines, each at most 76 characters,
    /// separated and ended by CRLF. `=` is always encoded, so a boundary starting with `=_`
    /// can never appear in the result.
    static func quotedPrintable(_ text: String) -> String {
        var output = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var length = 0
            for (index, byte) in bytes.enumerated() {
                let isTrailingSpace = (byte == 0x20 || byte == 0x09) && index == bytes.count - 1
                let literal = (byte >= 0x21 && byte <= 0x7E && byte != 0x3D) || ((byte == 0x20 || byte == 0x09) && !isTrailingSpace)
                let token = literal ? String(UnicodeScalar(byte)) : "=" + hex(byte)
                if length + token.count > 75 {  // room for the soft break's "="
                    output += "=\r\n"
                    length = 0
                }
                output += token
                length += token.count
            }
            output += "\r\n"
        }
        return output
    }

    /// A whole header field, `Name: value`, folded; non-ASCII `value` (or one that could be
    /// mistaken for encoded words) becomes RFC 2047 encoded words.
    static func header(_ name: String, _ value: String) -> String {
        fold(name, needsEncoding(value) ? encodedWords(value) : value.split(separator: " ", omittingEmptySubsequences: false).map(String.init))
    }

    /// A From or To field with a display name: the name as plain words, a quoted string or
    /// encoded words, as its characters require (RFC 5322 §3.4, RFC 2047 §5 (3)).
    static func header(_ name: String, displayName: String?, address: String) -> String {
        guard let displayName, !displayName.isEmpty else { return fold(name, [address]) }
        var words: [String]
        if needsEncoding(displayName) {
            words = encodedWords(displayName)
        } else if displayName.allSatisfy({ $0 == " " || isAtomText($0) }) {
            words = displayName.split(separator: " ").map(String.init)
        } else {
            words = ["\"" + displayName.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""]
        }
        return fold(name, words + ["<\(address)>"])
    }

    /// `Wed, 02 Dec 2026 08:00:00 +0000` (RFC 5322 §3.3), in UTC.
    static func date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { n! < 10 ? "0\(n!)" : "\(n!)" }
        return "\(days[c.weekday! - 1]), \(two(c.day)) \(months[c.month! - 1]) \(c.year!) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }

    /// Words joined by spaces, a new line (CRLF and a space) before a word that would pass the
    /// line limit; a word is never split.
    private static func fold(_ name: String, _ words: [String]) -> String {
        var output = name + ":"
        var lineLength = output.count
        for word in words {
            if lineLength + 1 + word.count > lineLimit && lineLength > name.count + 1 && !word.isEmpty {
                output += "\r\n"
                lineLength = 0
            }
            output += " " + word
            lineLength += 1 + word.count
        }
        return output
    }

    /// `=?UTF-8?B?…?=` words, each holding whole characters and at most 42 bytes of UTF-8: 56
    /// base64 characters, a 68-character word, which fits after `Subject: ` on the first line
    /// and stays within RFC 2047's 75.
    private static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 42 && !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words
    }

    private static func needsEncoding(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value > 0x7E } || text.contains("=?")
    }

    /// RFC 5322 §3.2.3 atext.
    private static func isAtomText(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-/=?^_`{|}~".contains(character))
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
