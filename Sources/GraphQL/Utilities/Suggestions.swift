/// "Did you mean" suggestions as graphql-js makes them: options within a lexical
/// distance of about 40% of the input's length, closest first, at most five.
enum Suggestions {
    static func list(_ input: String, _ options: [String]) -> [String] {
        let inputLower = Array(input.lowercased().unicodeScalars)
        let threshold = Int(Double(inputLower.count) * 0.4) + 1
        var scored: [(String, Int)] = []
        for option in options {
            let distance = option == input ? 0 : lexicalDistance(inputLower, input, option, threshold)
            if let distance, distance <= threshold { scored.append((option, distance)) }
        }
        scored.sort { a, b in a.1 != b.1 ? a.1 < b.1 : naturalLess(a.0, b.0) }
        return scored.map(\.0)
    }

    /// " Did you mean "a", "b", or "c"?" (with a leading space), or "" for none.
    static func didYouMean(_ suggestions: [String], prefix: String = "") -> String {
        let quoted = suggestions.prefix(5).map { "\"" + prefix + $0 + "\"" }
        switch quoted.count {
        case 0: return ""
        case 1: return " Did you mean \(quoted[0])?"
        case 2: return " Did you mean \(quoted[0]) or \(quoted[1])?"
        default: return " Did you mean " + quoted.dropLast().joined(separator: ", ") + ", or \(quoted.last!)?"
        }
    }

    /// Damerau-Levenshtein (optimal string alignment) distance, case-insensitive, where
    /// a case-only difference counts 1; nil when over the threshold.
    private static func lexicalDistance(_ aLower: [Unicode.Scalar], _ a: String, _ b: String, _ threshold: Int) -> Int? {
        let bLowerString = b.lowercased()
        if a.lowercased() == bLowerString { return 1 }
        var s = aLower
        var t = Array(bLowerString.unicodeScalars)
        if s.count < t.count { swap(&s, &t) }
        let m = s.count
        let n = t.count
        if m - n > threshold { return nil }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: 3)
        for j in 0...n { rows[0][j] = j }
        for i in 1...max(m, 1) where m > 0 {
            let upRow = rows[(i - 1) % 3]
            var currentRow = rows[i % 3]
            currentRow[0] = i
            var smallest = i
            if n > 0 {
                for j in 1...n {
                    let cost = s[i - 1] == t[j - 1] ? 0 : 1
                    var current = min(upRow[j] + 1, currentRow[j - 1] + 1, upRow[j - 1] + cost)
                    if i > 1 && j > 1 && s[i - 1] == t[j - 2] && s[i - 2] == t[j - 1] {
                        current = min(current, rows[(i - 2) % 3][j - 2] + 1)
                    }
                    if current < smallest { smallest = current }
                    currentRow[j] = current
                }
            }
            rows[i % 3] = currentRow
            if smallest > threshold { return nil }
        }
        let distance = rows[m % 3][n]
        return distance <= threshold ? distance : nil
    }

    /// graphql-js's naturalCompare: runs of ASCII digits compare by value, other
    /// characters by code point.
    private static func naturalLess(_ a: String, _ b: String) -> Bool {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var numberA = 0, numberB = 0
                while i < x.count, isDigit(x[i]) { numberA = numberA &* 10 &+ Int(x[i].value - 48); i += 1 }
                while j < y.count, isDigit(y[j]) { numberB = numberB &* 10 &+ Int(y[j].value - 48); j += 1 }
                if numberA != numberB { return numberA < numberB }
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value }
                i += 1
                j += 1
            }
        }
        return x.count - i < y.count - j
    }
}
