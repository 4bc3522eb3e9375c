/// An HTML file with placeholders, parsed once: `{{name}}` is replaced by a value HTML-escaped
/// (text: a username, a page's words), `{{{name}}}` by a value as it is (markup the caller made:
/// a page's body, style, script and data block, an attribute it switches on). Everything else
/// is copied exactly as written. Names are letters, digits, `.`, `-` and `_`; every `{{` in a
/// file starts a placeholder.
///
/// The mail's HTML part and the server's pages are made from such files, compiled in by the
/// EmbedText build plugin.
public struct HTMLTemplate: Sendable {
    private enum Part: Sendable {
        case text(String)
        case value(name: String, escaped: Bool)
    }

    /// The file's name, for messages.
    public let file: String
    private let parts: [Part]

    /// The names of the placeholders, in the order they appear.
    public var names: [String] {
        parts.compactMap { if case .value(let name, _) = $0 { name } else { nil } }
    }

    /// The template of `file` with the text `text`.
    public init(file: String, text: String) throws(HTMLTemplateError) {
        self.file = file
        var parts: [Part] = []
        var rest = text[...]
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            let escaped = !rest[open.upperBound...].hasPrefix("{")
            let nameStart = escaped ? open.upperBound : rest.index(after: open.upperBound)
            let close = escaped ? "}}" : "}}}"
            let line = text[..<open.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            guard let end = rest[nameStart...].firstRange(of: close) else {
                throw HTMLTemplateError(
                    file, line: line, "a placeholder opened with \(escaped ? "{{" : "{{{") is not closed with \(close)")
            }
            let name = String(rest[nameStart..<end.lowerBound])
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                throw HTMLTemplateError(
                    file, line: line, "\"\(name)\" is not a placeholder name (letters, digits, '.', '-' and '_')")
            }
            parts.append(.value(name: name, escaped: escaped))
            rest = rest[end.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The text with each placeholder replaced by `value(name)`. A name without a value is a
    /// mistake in the file or in the code that fills it, and stops the program, naming both.
    public func render(_ value: (String) -> String?) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .text(let text):
                output += text
            case .value(let name, let escaped):
                guard let text = value(name) else {
                    preconditionFailure("\(file) has the placeholder \(name), which nothing fills.")
                }
                output += escaped ? MailComposer.escape(text) : text
            }
        }
        return output
    }

    /// The text with each placeholder replaced by its value in `values`.
    public func render(_ values: [String: String] = [:]) -> String {
        render { values[$0] }
    }
}

/// An HTML template that does not parse: which file, which line, and why.
public struct HTMLTemplateError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ file: String, line: Int, _ reason: String) {
        description = "\(file):\(line): \(reason)."
    }
}
