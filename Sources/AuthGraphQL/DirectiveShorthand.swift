/// The short form `@maxLength(500)` of a fields file's limit directives, as the contract writes
/// them, turned into GraphQL's `@maxLength(n: 500)` before the engine parses the file (GraphQL
/// arguments are always named). Only a directive's own tokens change: strings, block strings and
/// comments are left alone. Locations in the rewritten text map back to the file's
/// (``originalColumn(line:column:)``), so every message points where the user wrote it.
struct DirectiveShorthand {
    /// The directives whose one argument `n` may be written without its name.
    static let directives: Set<String> = ["maxLength", "maxItems", "maxBytes"]
    /// What is inserted after the parenthesis.
    static let inserted = "n: "

    /// The text as the engine parses it.
    let text: String
    /// Columns (1-based, in Unicode scalars, of the file's text) where ``inserted`` went, by line.
    private let insertions: [Int: [Int]]

    init(_ original: String) {
        let scalars = Array(original.unicodeScalars)
        var output = String.UnicodeScalarView()
        var insertions: [Int: [Int]] = [:]
        var line = 1
        var column = 1
        var index = 0

        /// Copies the scalar at `index`, keeping the line and column.
        func copy() {
            let scalar = scalars[index]
            output.append(scalar)
            index += 1
            if scalar == "\n" || (scalar == "\r" && (index == scalars.count || scalars[index] != "\n")) {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        func at(_ offset: Int, _ text: String) -> Bool {
            let wanted = Array(text.unicodeScalars)
            guard offset + wanted.count <= scalars.count else { return false }
            return Array(scalars[offset..<(offset + wanted.count)]) == wanted
        }
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": true
            default: false
            }
        }

        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "#" {
                while index < scalars.count, scalars[index] != "\n", scalars[index] != "\r" { copy() }
            } else if at(index, "\"\"\"") {
                for _ in 0..<3 { copy() }
                while index < scalars.count, !at(index, "\"\"\"") {
                    if at(index, "\\\"\"\"") { for _ in 0..<4 { copy() } } else { copy() }
                }
                if index < scalars.count { for _ in 0..<3 { copy() } }
            } else if scalar == "\"" {
                copy()
                while index < scalars.count, scalars[index] != "\"", scalars[index] != "\n" {
                    if scalars[index] == "\\", index + 1 < scalars.count { copy() }
                    copy()
                }
                if index < scalars.count, scalars[index] == "\"" { copy() }
            } else if scalar == "@" {
                copy()
                var name = ""
                while index < scalars.count, isNameScalar(scalars[index]) {
                    name.unicodeScalars.append(scalars[index])
                    copy()
                }
                guard Self.directives.contains(name) else { continue }
                // `(`, white space, an optional minus and digits, white space, `)`.
                var look = index
                func skipBlanks() { while look < scalars.count, [" ", "\t"].contains(scalars[look]) { look += 1 } }
                skipBlanks()
                guard look < scalars.count, scalars[look] == "(" else { continue }
                look += 1
                let argumentStart = look
                skipBlanks()
                if look < scalars.count, scalars[look] == "-" { look += 1 }
                let digitsStart = look
                while look < scalars.count, ("0"..."9").contains(scalars[look]) { look += 1 }
                guard look > digitsStart else { continue }
                skipBlanks()
                guard look < scalars.count, scalars[look] == ")" else { continue }
                while index < argumentStart { copy() }
                insertions[line, default: []].append(column)
                output.append(contentsOf: Self.inserted.unicodeScalars)
            } else {
                copy()
            }
        }
        self.text = String(output)
        self.insertions = insertions
    }

    /// Whether the text was changed.
    var rewrote: Bool { !insertions.isEmpty }

    /// The column in the file's text of `column` of the rewritten text on `line` (lines are
    /// the same in both); a column inside an inserted `n: ` maps to where it was inserted.
    func originalColumn(line: Int, column: Int) -> Int {
        var shift = 0
        for inserted in insertions[line] ?? [] {
            let start = inserted + shift
            if column < start { break }
            if column < start + Self.inserted.unicodeScalars.count { return inserted }
            shift += Self.inserted.unicodeScalars.count
        }
        return column - shift
    }
}
