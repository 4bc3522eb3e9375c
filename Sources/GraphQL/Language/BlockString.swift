/// Block string algorithms: the value of a block string (spec §2.9.4
/// BlockStringValue()) and printing a value back as a block string.
enum BlockString {
    /// BlockStringValue(): removes the common indentation of all lines but the
    /// first, then leading and trailing blank lines, and joins with `\n`.
    static func dedent(_ lines: [[UInt8]]) -> String {
        var commonIndent = Int.max
        var firstNonEmpty: Int? = nil
        var lastNonEmpty = -1
        for (i, line) in lines.enumerated() {
            let indent = leadingWhitespace(line)
            if indent == line.count { continue }  // blank line
            if firstNonEmpty == nil { firstNonEmpty = i }
            lastNonEmpty = i
            if i != 0 && indent < commonIndent { commonIndent = indent }
        }
        guard let first = firstNonEmpty else { return "" }
        var out: [UInt8] = []
        for i in first...lastNonEmpty {
            if i > first { out.append(0x0A) }
            let line = lines[i]
            if i == 0 || commonIndent == Int.max {
                out.append(contentsOf: line)
            } else {
                out.append(contentsOf: line.dropFirst(min(commonIndent, line.count)))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func leadingWhitespace<C: Collection<UInt8>>(_ line: C) -> Int {
        var count = 0
        for b in line {
            guard b == 0x20 || b == 0x09 else { break }
            count += 1
        }
        return count
    }

    /// Whether `value` can be written as a block string that reads back as exactly
    /// `value` (no control characters, no `\r`, no leading or trailing blank line,
    /// no indentation common to every line).
    static func isPrintable(_ value: String) -> Bool {
        if value.isEmpty { return true }
        var isEmptyLine = true
        var hasIndent = false
        var hasCommonIndent = true
        var seenNonEmptyLine = false
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x0D:
                return false
            case 0x0A:
                if isEmptyLine && !seenNonEmptyLine { return false }
                seenNonEmptyLine = true
                isEmptyLine = true
                hasIndent = false
            case 0x09, 0x20:
                hasIndent = hasIndent || isEmptyLine
            default:
                hasCommonIndent = hasCommonIndent && hasIndent
                isEmptyLine = false
            }
        }
        if isEmptyLine { return false }
        if hasCommonIndent && seenNonEmptyLine { return false }
        return true
    }

    /// Prints `value` as a block string that reads back as `value` whenever `value`
    /// is a block string's value (the graphql-js algorithm).
    static func print(_ value: String, preferMultipleLines: Bool = false) -> String {
        let escaped = value.replacing("\"\"\"", with: "\\\"\"\"")
        let lines = escaped.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let isSingleLine = lines.count == 1
        let forceLeadingNewLine = lines.count > 1
            && lines.dropFirst().allSatisfy { $0.isEmpty || $0.first == " " || $0.first == "\t" }
        let hasTrailingTripleQuotes = escaped.hasSuffix("\\\"\"\"")
        let hasTrailingQuote = value.hasSuffix("\"") && !hasTrailingTripleQuotes
        let hasTrailingSlash = value.hasSuffix("\\")
        let forceTrailingNewLine = hasTrailingQuote || hasTrailingSlash
        let printAsMultipleLines = preferMultipleLines || !isSingleLine || value.unicodeScalars.count > 70
            || forceTrailingNewLine || forceLeadingNewLine || hasTrailingTripleQuotes
        var result = ""
        let skipLeadingNewLine = isSingleLine && (value.first == " " || value.first == "\t")
        if (printAsMultipleLines && !skipLeadingNewLine) || forceLeadingNewLine { result += "\n" }
        result += escaped
        if printAsMultipleLines || forceTrailingNewLine { result += "\n" }
        return "\"\"\"" + result + "\"\"\""
    }
}
