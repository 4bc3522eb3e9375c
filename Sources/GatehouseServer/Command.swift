import AuthGraphQL
import Foundation
import GraphQL
import Postgres
import Auth

/// The `gatehouse` command line: `serve` (the default), `migrate`, `keys rotate|list|revoke KID`,
/// `users import`, `schema print`, `schema diff OLD NEW`, `settings --markdown`, `webhooks secret`,
/// `audit verify`, `--help` for each, `--version`.
public enum Command {
    public static let version = "0.1.0"

    /// Runs the command and returns the process exit status.
    public static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        defer { LogWriter.standardError.flush() }  // log lines still buffered, before the process exits
        var arguments = arguments
        let command = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "serve"
        if !arguments.isEmpty, !arguments[0].hasPrefix("-") { arguments.removeFirst() }
        if arguments.contains("--version") {
            print("gatehouse \(version)")
            return 0
        }
        let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
        switch command {
        case "serve":
            if wantsHelp { print(serveHelp); return 0 }
            return withSettings(arguments, environment) { settings in serve(settings) }
        case "migrate":
            if wantsHelp { print(migrateHelp); return 0 }
            return withSettings(arguments, environment) { settings in migrate(settings) }
        case "keys":
            if wantsHelp || arguments.isEmpty { print(keysHelp); return wantsHelp ? 0 : 2 }
            let action = arguments.removeFirst()
            var keyId: String? = nil
            switch action {
            case "rotate", "list": break
            case "revoke":
                guard let first = arguments.first, !first.hasPrefix("-") else {
                    fail("keys revoke needs the id of the key (see gatehouse keys list)\n\n\(keysHelp)")
                    return 2
                }
                keyId = arguments.removeFirst()
            default:
                fail("unknown keys command \"\(action)\"\n\n\(keysHelp)")
                return 2
            }
            return withSettings(arguments, environment) { settings in keys(action, keyId: keyId, settings) }
        case "users":
            if wantsHelp || arguments.isEmpty { print(usersHelp); return wantsHelp ? 0 : 2 }
            return users(arguments, environment)
        case "schema":
            if wantsHelp || arguments.isEmpty { print(schemaHelp); return wantsHelp ? 0 : 2 }
            return schema(arguments, environment)
        case "settings":
            if wantsHelp { print(settingsHelp); return 0 }
            guard arguments == ["--markdown"] else {
                fail("settings needs --markdown\n\n\(settingsHelp)")
                return 2
            }
            print(Settings.markdown, terminator: "")
            return 0
        case "webhooks":
            guard arguments == ["secret"] else {
                if wantsHelp { print(webhooksHelp); return 0 }
                fail("webhooks needs secret\n\n\(webhooksHelp)")
                return 2
            }
            print(WebhookSecret.generate())
            return 0
        case "audit":
            guard arguments.first == "verify" else {
                if wantsHelp { print(auditHelp); return 0 }
                fail("audit needs verify\n\n\(auditHelp)")
                return 2
            }
            if wantsHelp { print(auditHelp); return 0 }
            arguments.removeFirst()
            return withSettings(arguments, environment) { settings in auditVerify(settings) }
        case "help":
            print(usage)
            return 0
        default:
            fail("unknown command \"\(command)\"\n\n\(usage)")
            return 2
        }
    }

    static func fail(_ message: String) {
        LogWriter.standardError.flush()  // the log lines before it come first
        FileHandle.standardError.write(Data(("gatehouse: " + message + "\n").utf8))
    }

    static func withSettings(_ arguments: [String], _ environment: [String: String], _ body: (Settings) -> Int32) -> Int32 {
        do {
            return body(try Settings.parse(arguments: arguments, environment: environment))
        } catch {
            fail(error.message)
            return 2
        }
    }

    // MARK: serve

    private static func serve(_ settings: Settings) -> Int32 {
        let signals = ShutdownSignals()
        let server: GatehouseServer
        do {
            let (settings, listenSocket) = try Privileges.dropRoot(settings)
            server = try GatehouseServer(settings: settings, listenSocket: listenSocket)
        } catch {
            fail(error.description)
            return 1
        }
        print("gatehouse listening on \(server.endpoint)")
        print("the sample app and the explorer: \(server.publicURL)/")
        fflush(nil)  // flush stdout so a supervisor reading the line sees it now
        let signal = signals.wait()
        server.logger.info("shutting down", ["signal": .string(signal == SIGTERM ? "SIGTERM" : "SIGINT")])
        server.stop()
        return 0
    }

    // MARK: migrate

    private static func migrate(_ settings: Settings) -> Int32 {
        let logger = Logger(level: settings.logLevel)
        do {
            let (settings, _) = try Privileges.dropRoot(settings)
            let (embedded, pool, _) = try GatehouseServer.openDatabase(settings, logger)
            defer {
                pool.close()
                if let embedded { try? embedded.stop() }
            }
            let applied = try GatehouseServer.migrate(settings, pool, logger)
            let version = try pool.withConnection { try Migrator.currentVersion($0) }
            print(applied.isEmpty
                ? "database is up to date (schema version \(version))"
                : "applied \(applied.map { "\($0.version) (\($0.name))" }.joined(separator: ", ")); schema version \(version)")
            return 0
        } catch {
            fail("migrate: \(error)")
            return 1
        }
    }

    // MARK: audit

    /// `audit verify`: seals what was committed, then walks the audit log of `settings`'
    /// database seal by seal; 0 when each entry, seal and the head match, 1 naming the first that
    /// does not (or when the database fails).
    private static func auditVerify(_ settings: Settings) -> Int32 {
        do {
            return try withDatabase(settings) { _, pool, _ in
                let verification = try AuditLog(pool: pool).verify()
                if let problem = verification.problem {
                    fail("audit log tampered with: \(problem) (\(verification.entries) entries checked)")
                    return 1
                }
                let pending = verification.pending > 0 ? ", \(verification.pending) newer not sealed yet" : ""
                print("audit log intact: \(verification.entries) entries in \(verification.seals) seals\(pending)")
                return 0
            }
        } catch {
            fail("audit verify: \(error)")
            return 1
        }
    }

    /// Runs a command's `body` on the database of `settings`, migrated first (as `serve` would),
    /// after dropping root: a running server's embedded database is used as it is and left
    /// running; one this command started is stopped after it.
    static func withDatabase<T>(
        _ settings: Settings, _ body: (Settings, Pool, EmbeddedPostgres?) throws -> T
    ) throws -> T {
        var settings = settings
        settings.port = 0  // listens on nothing: no privileged port to open before dropping root
        let logger = Logger(level: .warn)
        (settings, _) = try Privileges.dropRoot(settings)
        let wasRunning = settings.databaseURL == nil
            && ((try? EmbeddedPostgres(options: .init(dataDirectory: settings.dataDirectory)))?.isRunning ?? false)
        let (embedded, pool, _) = try GatehouseServer.openDatabase(settings, logger)
        defer {
            pool.close()
            if let embedded, !wasRunning { try? embedded.stop() }
        }
        _ = try GatehouseServer.migrate(settings, pool, logger)
        return try body(settings, pool, embedded)
    }

    // MARK: keys

    /// `keys rotate|list|revoke`: on the database of `settings`, migrated first (as `serve` would).
    /// Running servers hear of the change at once (the table's notification) or within a minute.
    private static func keys(_ action: String, keyId: String?, _ settings: Settings) -> Int32 {
        do {
            return try withDatabase(settings) { settings, pool, embedded in
                let box = try GatehouseServer.secretBox(settings, keyDirectory: embedded?.dataDirectory, purpose: .signingKeys)
                let keys = SigningKeys(pool: pool, box: box, policy: GatehouseServer.accessTokenPolicy(settings))
                switch action {
                case "rotate":
                    switch try keys.rotate() {
                    case .added(let key):
                        print("added \(key.keyId) (\(key.algorithm.rawValue)): published now, signs from \(time(key.signsFrom))")
                        return 0
                    case .waiting(let key):
                        fail("\(key.keyId) is waiting to sign already (from \(time(key.signsFrom))): nothing added")
                        return 1
                    }
                case "revoke":
                    switch try keys.revoke(keyId: keyId!) {
                    case .noSuchKey:
                        fail("no signing key \(keyId!) (see gatehouse keys list)")
                        return 1
                    case .revoked(let replacement):
                        print("revoked \(keyId!): no longer published; the tokens it signed no longer verify")
                        if let replacement {
                            print("added \(replacement.keyId) (\(replacement.algorithm.rawValue)), signing now: no other key was left")
                        }
                        return 0
                    }
                default:
                    let listed = try keys.list()
                    print(keyTable(listed))
                    return 0
                }
            }
        } catch {
            fail("keys \(action): \(error)")
            return 1
        }
    }

    /// One line per key: id, algorithm, state, and its dates.
    static func keyTable(_ keys: [(key: SigningKeySchedule.Key, state: SigningKeySchedule.State)]) -> String {
        var rows = [["KID", "ALG", "STATE", "CREATED", "SIGNS FROM", "PUBLISHED UNTIL"]]
        for (key, state) in keys {
            let (name, until): (String, String) = switch state {
            case .next: ("next", "-")
            case .signing: ("signing", "-")
            case .retired(let publishedUntil): ("retired", time(publishedUntil))
            case .ended: ("ended", "-")
            }
            rows.append([key.keyId, key.algorithm.rawValue, name, time(key.createdAt), time(key.signsFrom), until])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// A time as `2026-12-06T10:00:00Z`.
    private static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    // MARK: schema

    private static func schema(_ arguments: [String], _ environment: [String: String]) -> Int32 {
        switch arguments[0] {
        case "print":
            // Only GATEHOUSE_USER_FIELDS (--user-fields) changes the schema.
            let options = Array(arguments.dropFirst())
            if let other = options.first(where: { $0.hasPrefix("--") && $0 != "--user-fields" && !$0.hasPrefix("--user-fields=") }) {
                fail("schema print takes only --user-fields, not \(other)\n\n\(schemaHelp)")
                return 2
            }
            do {
                let settings = try Settings.parse(
                    arguments: options, environment: environment.filter { $0.key == "GATEHOUSE_USER_FIELDS" })
                print(printSchema(try GatehouseServer.schema(settings).0))
                return 0
            } catch let error as SettingsError {
                fail(error.message)
                return 2
            } catch {
                fail("\(error)")
                return 1
            }
        case "diff":
            guard arguments.count == 3 else {
                fail("schema diff needs two files: gatehouse schema diff OLD NEW")
                return 2
            }
            func load(_ path: String) -> GraphQLSchema? {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    fail("cannot read \(path)")
                    return nil
                }
                do {
                    // A fields file (GATEHOUSE_USER_FIELDS) is compared as the schema it serves.
                    if UserFieldsFile.isFieldsFile(text) {
                        let file = try UserFieldsFile(sdl: text, sourceName: path, base: try AuthGraphQL.schema())
                        return try AuthGraphQL.schema(userFields: file)
                    }
                    return try GraphQLSchema.build(sdl: text, sourceName: path)
                } catch {
                    fail("\(path) does not build as a schema:\n\(error)")
                    return nil
                }
            }
            guard let old = load(arguments[1]), let new = load(arguments[2]) else { return 2 }
            let changes = findSchemaChanges(from: old, to: new)
            for change in changes {
                print("\(change.isBreaking ? "BREAKING" : "dangerous") \(change.kind.rawValue): \(change.description)")
            }
            let breaking = changes.filter(\.isBreaking).count
            print(breaking > 0
                ? "\(breaking) breaking change(s), \(changes.count - breaking) dangerous"
                : "no breaking changes (\(changes.count) dangerous)")
            return breaking > 0 ? 1 : 0
        default:
            fail("unknown schema command \"\(arguments[0])\"\n\n\(schemaHelp)")
            return 2
        }
    }

    // MARK: Help

    static let usage = """
        Gatehouse: a GraphQL auth server (sign up, log in, log out, viewer) on PostgreSQL.

        Usage: gatehouse [COMMAND] [OPTIONS]

        Commands:
          serve                 Run the server (the default)
          migrate               Apply the database migrations and exit
          keys list|rotate      List the access-token signing keys; add a replacement
          keys revoke KID       Remove a signing key at once (its tokens stop verifying)
          users import          Import users from a Firebase or Parse export, passwords included
          schema print          Print the served schema (SDL), with GATEHOUSE_USER_FIELDS' fields
          schema diff OLD NEW   List breaking and dangerous changes from OLD to NEW; exit 1 on breaking ones
          settings --markdown   Print every setting as a Markdown page (the repository's docs/settings.md)
          webhooks secret       Print a new webhook or hook secret (whsec_…) for GATEHOUSE_WEBHOOKS or GATEHOUSE_HOOKS
          audit verify          Seal, then check the audit log's hash chain; exit 1 naming the first entry that does not match

        Run "gatehouse COMMAND --help" for a command's options; "gatehouse --version" for the version.
        """

    static var serveHelp: String {
        var text = """
            Usage: gatehouse serve [OPTIONS]

            Runs the server. Without DATABASE_URL it creates and runs a private PostgreSQL
            under the data directory. Options override the environment variables beside them.

            Options:

            """
        for spec in Settings.specs {
            let flag = "  --\(spec.flag) \(spec.placeholder)"
            text += flag.padding(toLength: max(flag.count + 1, 34), withPad: " ", startingAt: 0)
            // The summary's backquotes mark code for the Markdown table; a terminal shows it plain.
            let summary = spec.summary.replacingOccurrences(of: "`", with: "")
            text += "\(summary) [\(spec.environment); default: \(spec.defaultText)]\n"
        }
        return text
    }

    static let migrateHelp = """
        Usage: gatehouse migrate [OPTIONS]

        Applies the migrations compiled into this binary to the database (DATABASE_URL, or
        the embedded database under GATEHOUSE_DATA_DIR) and exits. Safe to run while other
        instances start: migrations are serialised with an advisory lock (a row lock with
        GATEHOUSE_POLL_INTERVAL). While the database is unreachable or read-only (a failover)
        it tries again for up to GATEHOUSE_DATABASE_WAIT seconds. Takes the same database
        options as serve (see gatehouse serve --help).
        """

    static let auditHelp = """
        Usage: gatehouse audit verify [OPTIONS]

        Walks every hash chain of the audit log, from where retention cut it to its head, and
        recomputes each entry's hash (SHA-256 over the previous hash and the entry). Exits 0 when
        all match; 1 naming the first entry that does not (an entry edited, deleted, inserted or
        moved in the database), or when the database cannot be read. Takes the same database
        options as serve (see gatehouse serve --help).
        """

    static let webhooksHelp = """
        Usage: gatehouse webhooks secret

        Prints a new secret for an endpoint of GATEHOUSE_WEBHOOKS or a hook of GATEHOUSE_HOOKS:
        whsec_ and the base64 of 32 random bytes. Give the same secret to the receiver, which
        verifies each request's webhook-signature with it (any Standard Webhooks library).
        """

    static let keysHelp = """
        Usage:
          gatehouse keys list [OPTIONS]        Each signing key: id, algorithm, state, dates
          gatehouse keys rotate [OPTIONS]      Add the next key: published now, signing 10 minutes later
          gatehouse keys revoke KID [OPTIONS]  Remove a key at once (after a leak); its tokens stop verifying

        The keys that sign access tokens live in the database, sealed under GATEHOUSE_SECRET_KEY;
        running servers pick up a change at once (or within a minute without notifications).
        States: next (published, signs from its date), signing, retired (published until every
        token it signed has expired). Revoking the signing key lets the key before it sign again
        while it is published, else the next key at once; revoking the last key makes a new one.
        Keys are also replaced every GATEHOUSE_SIGNING_KEY_ROTATION_DAYS. Takes the same database
        options as serve (see gatehouse serve --help).
        """

    static let settingsHelp = """
        Usage: gatehouse settings --markdown

        Prints every setting (variable, flag, default, meaning) and the removed ones as a
        Markdown page, from the same declarations that parse them. The repository keeps the
        output as docs/settings.md; a test fails when the two differ.
        """

    static let schemaHelp = """
        Usage:
          gatehouse schema print [--user-fields @FILE]
                                           Print the schema this binary serves, with the user fields
                                           of FILE (or of GATEHOUSE_USER_FIELDS) when given
          gatehouse schema diff OLD NEW    Compare two SDL files (schemas, or fields files compared as
                                           the schemas they serve); exit 1 on a breaking change
        """
}
