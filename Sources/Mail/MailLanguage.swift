/// The languages of the mail templates; the raw value is the language tag.
public enum MailLanguage: String, Sendable, CaseIterable {
    case english = "en", spanish = "es", french = "fr", korean = "ko"

    /// The best of the four for an Accept-Language header (RFC 9110 §12.5.4): the highest
    /// q-value wins, earlier in the header on a tie; a range counts by its primary subtag
    /// (`es-MX` → Spanish); `*` stands for every language the header does not name; `q=0`
    /// excludes. English when none fits or the header is absent or garbage (entries that do not
    /// parse are skipped).
    public init(acceptLanguage: String?) {
        var best: (language: MailLanguage, q: Double, position: Int)?
        var named: [MailLanguage: (q: Double, position: Int)] = [:]
        var wildcard: (q: Double, position: Int)?
        // A header longer than any browser sends is cut: the work stays bounded.
        let entries = (acceptLanguage ?? "").split(separator: ",", omittingEmptySubsequences: true).prefix(64)
        for (position, entry) in entries.enumerated() {
            guard let (range, q) = Self.parse(entry) else { continue }
            if range == "*" {
                wildcard = wildcard ?? (q, position)
            } else if let language = MailLanguage(rawValue: String(range.split(separator: "-")[0])) {
                // Several ranges for one language (`es-MX;q=0.2, es`): the best of them.
                if let earlier = named[language], earlier.q >= q { continue }
                named[language] = (q, position)
            }
        }
        for language in MailLanguage.allCases {
            guard let (q, position) = named[language] ?? wildcard, q > 0 else { continue }
            if best == nil || q > best!.q || (q == best!.q && position < best!.position) {
                best = (language, q, position)
            }
        }
        self = best?.language ?? .english
    }

    /// `language-range [ ";" "q=" qvalue ]` with optional whitespace; the range lowercased.
    /// nil when the entry is not one (other parameters are ignored, as RFC 9110 allows none).
    private static func parse(_ entry: Substring) -> (range: String, q: Double)? {
        let pieces = entry.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        let range = pieces[0].lowercased()
        let isRange = range == "*" || (!range.isEmpty && range.split(separator: "-", omittingEmptySubsequences: false).allSatisfy {
            (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        } && range.first!.isLetter)
        guard isRange else { return nil }
        var q = 1.0
        for parameter in pieces.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard pair.count == 2, pair[0].lowercased() == "q", let value = qvalue(pair[1]) else { return nil }
            q = value
        }
        return (range, q)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`
    private static func qvalue(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0] == "0" || parts[0] == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard parts[0] == "0" || fraction.allSatisfy({ $0 == "0" }) else { return nil }
        return Double(String(text.hasSuffix(".") ? text.dropLast() : text))
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        return self[start...lastIndex(where: { !isSpace($0) })!]
    }
}
