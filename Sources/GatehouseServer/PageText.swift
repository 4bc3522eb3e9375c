import JSON
import Mail

/// The words of the pages behind the links (`/verify-email`, `/reset-password`) in the four mail
/// languages, the error words the sample app shares with them, and the sample app's own `app.`
/// texts (the sample app is served in English): the files
/// `Pages/text/en.json`, `es.json`, `fr.json` and `ko.json`, each one JSON object of strings.
///
/// Placeholders: `{app}` (GATEHOUSE_APP_NAME) and `{min}` (the password minimum) are filled when
/// the server starts; `{username}` when a page is served; `{seconds}`, `{minutes}`, `{limit}` and
/// `{code}` by the page's script. Every language has exactly the English keys (a test checks).
enum PageText {
    static func table(_ language: MailLanguage) -> [String: String] {
        tables[language]!
    }

    static var english: [String: String] { table(.english) }

    /// The table of `language` with the server's `{app}` and `{min}` filled in.
    static func filled(_ language: MailLanguage, appName: String, passwordMinLength: Int) -> [String: String] {
        table(language).mapValues {
            $0.replacingOccurrences(of: "{app}", with: appName).replacingOccurrences(of: "{min}", with: String(passwordMinLength))
        }
    }

    /// `table` as a JSON object for a page's data block (keys sorted: the same page every time).
    static func json(_ table: [String: String]) -> JSON {
        let keys = table.keys.sorted()
        return .object(JSONObject(uniqueKeys: keys, values: keys.map { .string(table[$0]!) }))
    }

    /// The texts of `file`: one JSON object whose values are strings, each key once.
    static func parse(_ text: String, file: String) throws(FileError) -> [String: String] {
        var table: [String: String] = [:]
        var problem: String?
        let isObject: Bool
        do {
            isObject = try JSONParser().parseObjectMembers(Array(text.utf8)) { key, value in
                guard problem == nil else { return }
                guard case .string(let string) = value else {
                    problem = "the value of \"\(key)\" is not a string"
                    return
                }
                if table.updateValue(string, forKey: key) != nil { problem = "the key \"\(key)\" is there twice" }
            }
        } catch {
            throw FileError(file, "not JSON: \(error)")
        }
        guard isObject else { throw FileError(file, "not a JSON object of texts") }
        if let problem { throw FileError(file, problem) }
        return table
    }

    private static let tables: [MailLanguage: [String: String]] = Dictionary(
        uniqueKeysWithValues: MailLanguage.allCases.map { language in
            let file = "text/\(language.rawValue).json"
            let text = switch language {
            case .english: PageFiles.textEnJson
            case .spanish: PageFiles.textEsJson
            case .french: PageFiles.textFrJson
            case .korean: PageFiles.textKoJson
            }
            do throws(FileError) { return (language, try parse(text, file: file)) } catch {
                preconditionFailure(error.description)
            }
        })

    /// A text file that is not a table of texts: which file, and why.
    struct FileError: Error, CustomStringConvertible {
        let description: String

        init(_ file: String, _ reason: String) {
            description = "Pages/\(file): \(reason)."
        }
    }
}
