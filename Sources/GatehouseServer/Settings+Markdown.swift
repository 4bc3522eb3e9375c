/// The settings as a Markdown page: what `gatehouse settings --markdown` prints and the
/// repository commits as docs/settings.md, derived from `Settings.specs` and `Settings.removed`
/// so that the documented table cannot drift from what the server parses.
extension Settings {
    /// The command that prints the page, as the page and the test comparing it name it.
    public static let markdownCommand = "swift run gatehouse settings --markdown > docs/settings.md"

    /// The whole page, ending in a newline. Defaults are the ones every machine has; a default
    /// that depends on the machine is given in words (`SettingSpec.documentedDefault`).
    public static var markdown: String {
        var page = """
            # Settings

            Printed by `gatehouse settings --markdown` from the declarations the server parses its \
            settings with (`Settings.specs` in `Sources/GatehouseServer/Settings.swift`); change \
            those, then regenerate this page:

                \(markdownCommand)

            Every setting is an environment variable and a flag of `gatehouse serve` and \
            `gatehouse migrate` (`--name value` or `--name=value`); a flag wins over its variable. \
            An invalid value stops start-up with a message naming the setting and the value \
            expected. Unknown flags are refused; unknown variables are ignored. \
            `gatehouse serve --help` prints the same list with this machine's defaults. How the \
            settings work together: [operations](operations.md).

            | environment | flag | default | meaning |
            | --- | --- | --- | --- |

            """
        for spec in specs {
            let defaultCell: String
            if let words = spec.documentedDefault {
                defaultCell = markdownCell(words)
            } else if spec.defaultText.hasPrefix("("), spec.defaultText.hasSuffix(")") {
                defaultCell = markdownCell(String(spec.defaultText.dropFirst().dropLast()))
            } else {
                defaultCell = markdownCell("`\(spec.defaultText)`")
            }
            page += "| `\(spec.environment)` | `--\(spec.flag) \(spec.placeholder)` | \(defaultCell) | \(markdownCell(spec.summary)) |\n"
        }
        page += """

            ## Removed settings

            A deployment that still sets one of these, as a variable or as a flag, stops at \
            start-up with a message naming what replaced it, rather than run without it.

            | environment | flag | use instead |
            | --- | --- | --- |

            """
        for old in removed {
            page += "| `\(old.environment)` | `--\(old.flag)` | \(markdownCell(old.replacement)) |\n"
        }
        return page
    }

    /// `text` as the content of a Markdown table cell. Text between backquotes stays code;
    /// elsewhere setting names (`DATABASE_URL`, `GATEHOUSE_…`) and flags (`--name`) become
    /// code, and the characters Markdown would read as markup are escaped. A `|` is escaped
    /// everywhere, code included, as a table cell requires.
    static func markdownCell(_ text: String) -> String {
        var cell = ""
        for (index, segment) in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
            if index % 2 == 1 {
                cell += "`" + segment.replacingOccurrences(of: "|", with: "\\|") + "`"
                continue
            }
            var word = ""
            func flushWord() {
                if word.hasPrefix("GATEHOUSE_") || word == "DATABASE_URL" || (word.hasPrefix("--") && word.count > 2) {
                    cell += "`" + word + "`"
                } else {
                    cell += word.replacingOccurrences(of: "_", with: "\\_")
                }
                word = ""
            }
            for character in segment {
                if character.isLetter || character.isNumber || character == "_" || character == "-" {
                    word.append(character)
                    continue
                }
                flushWord()
                if "\\*<>[]|".contains(character) { cell += "\\" }
                cell.append(character)
            }
            flushWord()
        }
        return cell
    }
}
