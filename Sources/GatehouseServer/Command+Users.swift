import Auth
import Foundation
import Postgres
import Sodium

/// `gatehouse users import`: users from a Firebase or Parse export.
extension Command {
    /// The options of `users import` besides the database settings.
    struct ImportOptions: Equatable {
        var format: String
        var file: String
        var hashKey: String?
        var saltSeparator: String?
        var rounds: Int?
        var memCost: Int?
        var batchSize = 2000
        var verbose = false

        /// Parses the options `users import` takes; returns them and the arguments left for the
        /// database settings.
        static func parse(_ arguments: [String]) throws(SettingsError) -> (ImportOptions, [String]) {
            var format: String?, file: String?, rest: [String] = []
            var options = ImportOptions(format: "", file: "")
            var index = 0
            func value(_ flag: String) throws(SettingsError) -> String {
                index += 1
                guard index < arguments.count else { throw SettingsError("users import: \(flag) needs a value") }
                return arguments[index]
            }
            func number(_ flag: String) throws(SettingsError) -> Int {
                let text = try value(flag)
                guard let number = Int(text), number > 0 else { throw SettingsError("users import: \(flag) must be a positive whole number, not \"\(text)\"") }
                return number
            }
            while index < arguments.count {
                var argument = arguments[index]
                var inline: String? = nil
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    inline = String(argument[argument.index(after: equals)...])
                    argument = String(argument[..<equals])
                }
                if let inline, ["--format", "--hash-key", "--salt-separator", "--rounds", "--mem-cost", "--batch-size"].contains(argument) {
                    // `--flag=value`: handled as `--flag value`.
                    var expanded = arguments
                    expanded.replaceSubrange(index...index, with: [argument, inline])
                    return try parse(expanded)
                }
                switch argument {
                case "--format": format = try value(argument)
                case "--hash-key": options.hashKey = try value(argument)
                case "--salt-separator": options.saltSeparator = try value(argument)
                case "--rounds": options.rounds = try number(argument)
                case "--mem-cost": options.memCost = try number(argument)
                case "--batch-size": options.batchSize = try number(argument)
                case "--verbose": options.verbose = true
                default:
                    if !argument.hasPrefix("-"), file == nil, inline == nil {
                        file = argument
                    } else {
                        rest.append(arguments[index])
                        // A database setting's value goes with it.
                        if inline == nil, argument.hasPrefix("--"), index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
                            index += 1
                            rest.append(arguments[index])
                        }
                    }
                }
                index += 1
            }
            guard let format, ["firebase", "parse"].contains(format) else {
                throw SettingsError("users import needs --format firebase or --format parse")
            }
            guard let file else { throw SettingsError("users import needs the export's file") }
            options.format = format
            options.file = file
            return (options, rest)
        }

        /// The export's format with its hash parameters.
        func exportFormat() throws(SettingsError) -> ExportFormat {
            guard format == "firebase" else {
                if hashKey != nil || saltSeparator != nil || rounds != nil || memCost != nil {
                    throw SettingsError("users import: --hash-key, --salt-separator, --rounds and --mem-cost are for --format firebase")
                }
                return .parse
            }
            guard let hashKey, let saltSeparator, let rounds, let memCost else {
                throw SettingsError("""
                    users import --format firebase needs the project's password hash parameters: --hash-key, \
                    --salt-separator, --rounds and --mem-cost (Firebase console, Authentication, Users, Password hash parameters)
                    """)
            }
            guard let key = FirebaseScrypt.decode(hashKey) else { throw SettingsError("users import: --hash-key is not base64") }
            guard let separator = FirebaseScrypt.decode(saltSeparator) else {
                throw SettingsError("users import: --salt-separator is not base64")
            }
            let parameters = FirebaseScrypt.Parameters(signerKey: key, saltSeparator: separator, rounds: rounds, memCost: memCost)
            if let problem = parameters.check() { throw SettingsError("users import: \(problem)") }
            return .firebase(parameters)
        }
    }

    static func users(_ arguments: [String], _ environment: [String: String]) -> Int32 {
        var arguments = arguments
        guard arguments.first == "import" else {
            fail("unknown users command \"\(arguments.first ?? "")\"\n\n\(usersHelp)")
            return 2
        }
        arguments.removeFirst()
        let options: ImportOptions, format: ExportFormat, rest: [String]
        do {
            (options, rest) = try ImportOptions.parse(arguments)
            format = try options.exportFormat()
        } catch {
            fail("\(error.message)\n\n\(usersHelp)")
            return 2
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: options.file), options: .alwaysMapped) } catch {
            fail("users import: cannot read \(options.file): \(error.localizedDescription)")
            return 1
        }
        return withSettings(rest, environment) { settings in
            do {
                return try withDatabase(settings) { _, pool, _ in
                    let progress = ImportProgress(terminal: isatty(STDERR_FILENO) == 1)
                    let summary = try data.withUnsafeBytes { bytes in
                        try UserImporter(pool: pool, batchSize: options.batchSize).run(
                            bytes, format: format,
                            event: { event in
                                switch event {
                                case .refused(let line, let reason): progress.line("line \(line): refused: \(reason)")
                                case .skipped(let line) where options.verbose: progress.line("line \(line): skipped: already imported")
                                default: break
                                }
                            },
                            progress: progress.update)
                    }
                    progress.finish()
                    print("imported \(summary.imported), skipped \(summary.skipped) (already there), refused \(summary.refused)")
                    return summary.refused > 0 ? 3 : 0
                }
            } catch let failure as ExportReader.Failure {
                fail("users import: \(options.file): \(failure); the records before it were imported")
                return 1
            } catch {
                fail("users import: \(error)")
                return 1
            }
        }
    }

    /// The running counts on standard error, rewritten in place on a terminal only.
    final class ImportProgress {
        let terminal: Bool
        private var shown = false

        init(terminal: Bool) { self.terminal = terminal }

        /// A report line on standard output (the progress line is cleared first).
        func line(_ text: String) {
            clear()
            print(text)
        }

        func update(_ summary: UserImporter.Summary) {
            guard terminal else { return }
            fflush(nil)  // the report lines on standard output come first
            FileHandle.standardError.write(Data(
                "\r\u{1B}[Kread \(summary.records): imported \(summary.imported), skipped \(summary.skipped), refused \(summary.refused)".utf8))
            shown = true
        }

        func finish() { clear() }

        private func clear() {
            guard shown else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            shown = false
        }
    }

    static let usersHelp = """
        Usage:
          gatehouse users import --format firebase FILE --hash-key B64 --salt-separator B64 --rounds N --mem-cost N [OPTIONS]
          gatehouse users import --format parse FILE [OPTIONS]

        Imports the users of an export: Firebase's `firebase auth:export FILE --format=json` (with the
        project's password hash parameters from the Firebase console), or a Parse Server _User export
        (JSON lines, or {"results": [...]}). Ids, usernames, emails and whether they are verified,
        display names and photos, linked providers and creation times are kept; password hashes are
        kept as they are and replaced by argon2id at each user's next log-in. Users already there (by
        id) are skipped, so running the import again is safe. Each refused record is printed with its
        line and reason; the summary ends the output. Exits 0, or 3 when some record was refused.

          --batch-size N   Users per transaction (default 2000)
          --verbose        Also print each skipped record's line
        Takes the same database options as serve (see gatehouse serve --help).
        """
}
