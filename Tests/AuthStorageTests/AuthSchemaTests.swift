import Auth
import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Signatures
import TestSupport
import Testing

/// Migration 1 against a real database: constraints the domain relies on.
@Suite struct AuthSchemaTests {
    let pool: Pool

    init() throws {
        pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
    }

    static let phc = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

    func insertUser(_ c: some PostgresQueryable, id: String, username: String, email: String? = nil) throws {
        let now = Date()
        try c.execute(
            """
            INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
            VALUES (\(id), \(username), \(email), \(Self.phc), \(PostgresJSON("{}")), \(now), \(now))
            """)
    }

    @Test func migrationIsIdempotent() throws {
        #expect(try Migrator(migrations: AuthMigrations.all).migrate(pool).isEmpty)
    }

    @Test func usernamesDifferingOnlyInCaseViolateTheUniqueIndex() throws {
        try pool.withConnection { c in
            try insertUser(c, id: "aaaaaaaaa1", username: "Alice")
            let error = try #require(throws: PostgresError.self) {
                try insertUser(c, id: "aaaaaaaaa2", username: "aLICE")
            }
            #expect(error.uniqueViolationConstraint == AuthMigrations.Constraint.usernameUnique)
            #expect(!error.description.lowercased().contains("alice"))
        }
    }

    @Test func emailsAreUniqueIgnoringCaseButMayBeNull() throws {
        try pool.withConnection { c in
            try insertUser(c, id: "bbbbbbbbb1", username: "b1", email: "Bob@Example.com")
            try insertUser(c, id: "bbbbbbbbb2", username: "b2")
            try insertUser(c, id: "bbbbbbbbb3", username: "b3")
            let error = try #require(throws: PostgresError.self) {
                try insertUser(c, id: "bbbbbbbbb4", username: "b4", email: "bob@example.COM")
            }
            #expect(error.isUniqueViolation(constraint: AuthMigrations.Constraint.emailUnique))
        }
    }

    /// Object ids are 1 to 64 characters of `[A-Za-z0-9_-]` (Gatehouse makes ten alphanumeric
    /// ones; an import keeps the exporter's, migration 19).
    @Test(arguments: ["has space!", "", "slash/id", "dot.id", String(repeating: "x", count: 65), "é"])
    func objectIdsOutsideTheirAlphabetOrLengthAreRefused(_ id: String) throws {
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { c in try insertUser(c, id: id, username: "u-\(id)") }
        }
        #expect(error.sqlState == SQLState.checkViolation)
        #expect(error.constraint == "users_object_id_format")
    }

    @Test(arguments: ["short", "elevenchars", "a", "firebase_UID-0123", String(repeating: "x", count: 64)])
    func importedIdsOfOneTo64CharactersAreTaken(_ id: String) throws {
        try pool.withConnection { c in try insertUser(c, id: id, username: "u-\(id)") }
    }

    @Test(arguments: [0, 31, 33, 64])
    func tokenDigestMustBe32Bytes(_ length: Int) throws {
        try pool.withConnection { c in
            try insertUser(c, id: "ccccccccc1", username: "c")
            let error = try #require(throws: PostgresError.self) {
                try insertSession(c, id: "sssssssss1", user: "ccccccccc1", digest: [UInt8](repeating: 7, count: length))
            }
            #expect(error.constraint == "sessions_token_digest_length")
        }
    }

    /// Inserts a session; `beforeMigration4`: into the table as it was before `last_used_at`.
    func insertSession(
        _ c: some PostgresQueryable, id: String, user: String, digest: [UInt8], expires: Date = Date() + 3600,
        beforeMigration4: Bool = false
    ) throws {
        let now = Date()
        let createdWith = PostgresJSON(#"{"action":"login"}"#)
        if beforeMigration4 {
            try c.execute("""
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at)
                VALUES (\(id), \(digest), \(user), \(createdWith), \(expires), \(now), \(now))
                """)
        } else {
            try c.execute("""
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at, last_used_at)
                VALUES (\(id), \(digest), \(user), \(createdWith), \(expires), \(now), \(now), \(now))
                """)
        }
    }

    /// During a rolling upgrade, instances of the previous version insert sessions without the
    /// columns migration 4 added; the row takes its time of insertion as last use.
    @Test func aSessionInsertedAsThePreviousVersionDoesIsAccepted() throws {
        try pool.withConnection { c in
            try insertUser(c, id: "eeeeeeeee1", username: "e")
            try insertSession(c, id: "sssssssss3", user: "eeeeeeeee1", digest: [UInt8](repeating: 3, count: 32), beforeMigration4: true)
            let row = try #require(try c.queryFirst("SELECT last_used_at IS NOT NULL, user_agent IS NULL FROM sessions"))
            #expect(try row.decode(Bool.self, at: 0) && row.decode(Bool.self, at: 1))
        }
    }

    @Test func sessionsAreUniqueByDigestAndDeletedWithTheirUser() throws {
        try pool.withConnection { c in
            try insertUser(c, id: "ddddddddd1", username: "d")
            let digest = [UInt8](repeating: 1, count: 32)
            try insertSession(c, id: "sssssssss1", user: "ddddddddd1", digest: digest)
            let error = try #require(throws: PostgresError.self) {
                try insertSession(c, id: "sssssssss2", user: "ddddddddd1", digest: digest)
            }
            #expect(error.isUniqueViolation(constraint: AuthMigrations.Constraint.sessionTokenDigestUnique))
            // The viewer lookup (the benchmark's query) finds the session and its user.
            let row = try #require(try c.queryFirst(
                "SELECT s.object_id, s.expires_at, u.* FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = \(digest)"))
            #expect(try row.decode("username", as: String.self) == "d")
            #expect(try row.decode("email_verified", as: Bool.self) == false)
            #expect(try row.decode("failed_login_count", as: Int.self) == 0)
            #expect(try row.decode("auth_data", as: PostgresJSON?.self) == nil)
            try c.execute("DELETE FROM users WHERE object_id = \("ddddddddd1")")
            #expect(try #require(try c.queryFirst("SELECT count(*) FROM sessions")).decode(Int.self, at: 0) == 0)
        }
    }

    /// The change triggers notify for every connection but one that set `gatehouse.notify` to
    /// `off` (an instance polling on an engine without NOTIFY).
    @Test func changeTriggersNotifyUnlessTheConnectionSwitchesThemOff() throws {
        let database = try TestDatabase.create()
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        var quietConfiguration = ConnectionConfiguration(database.connectionString)
        quietConfiguration.runtimeParameters = [AuthMigrations.notifySetting: "off"]
        let quiet = try Connection(configuration: quietConfiguration)
        let loud = try database.connect()
        let listener = try database.connect()
        defer { [quiet, loud, listener].forEach { $0.close() } }
        for channel in [AuthMigrations.Channel.sessions, AuthMigrations.Channel.users, AuthMigrations.Channel.mail] {
            try listener.listen(channel)
        }
        try insertUser(loud, id: "fffffffff1", username: "f")
        for n in [UInt8(1), 2] { try insertSession(loud, id: "sssssssss\(n)", user: "fffffffff1", digest: [UInt8](repeating: n, count: 32)) }
        func write(_ c: Connection, session: UInt8, username: String) throws {
            try c.execute("DELETE FROM sessions WHERE object_id = \("sssssssss\(session)")")
            try c.execute("UPDATE users SET username = \(username) WHERE object_id = 'fffffffff1'")
            try c.execute("""
                INSERT INTO mail_outbox (kind, user_id, recipient, username, language, message_id, created_at, next_attempt_at)
                VALUES ('reset_password', 'fffffffff1', 'f@example.com', \(username), 'en', \(username), now(), now())
                """)
        }
        try write(quiet, session: 1, username: "quiet")
        try write(loud, session: 2, username: "loud")

        // Delivered in commit order: once the loud writer's three are in, the quiet one's would be too.
        var received: [PostgresNotification] = []
        #expect(try eventually { received += try listener.waitForNotifications(timeout: 0.1); return received.count >= 3 })
        #expect(received.filter { $0.backendPID == quiet.backendPID }.isEmpty)
        #expect(received.map { "\($0.channel) \($0.payload)" } == [
            "gatehouse_sessions " + String(repeating: "02", count: 32), "gatehouse_users fffffffff1", "gatehouse_mail ",
        ])
        #expect(try loud.queryFirst("SELECT count(*)::int8 FROM mail_outbox")?.decode(Int.self, at: 0) == 2)
    }

    @Test func noColumnIsNamedLikeARawSecret() throws {
        let columns = try pool.withConnection { c in
            try c.query("SELECT column_name::text FROM information_schema.columns WHERE table_name IN ('users', 'sessions')")
                .map { try $0.decode(String.self, at: 0) }
        }
        #expect(columns.contains("token_digest") && columns.contains("password_hash"))
        #expect(!columns.contains("token") && !columns.contains("password") && !columns.contains("session_token"))
    }

    /// Migration 3 remembers the installations of the sessions that exist (by digest), until
    /// the latest of each one's sessions expires, so owners are known from the start.
    @Test func logInLimitsMigrationRemembersExistingInstallations() throws {
        let pool = try TestDatabase.create().makePool(size: 1)
        defer { pool.close() }
        try Migrator(migrations: Array(AuthMigrations.all.prefix(2))).migrate(pool)
        let later = Date(timeIntervalSince1970: 2_000_000_000)
        try pool.withConnection { c in
            try insertUser(c, id: "eeeeeeeee1", username: "e")
            try insertSession(c, id: "sssssssss1", user: "eeeeeeeee1", digest: [UInt8](repeating: 1, count: 32), beforeMigration4: true)
            try insertSession(
                c, id: "sssssssss2", user: "eeeeeeeee1", digest: [UInt8](repeating: 2, count: 32), expires: later, beforeMigration4: true)
            try insertSession(c, id: "sssssssss3", user: "eeeeeeeee1", digest: [UInt8](repeating: 3, count: 32), beforeMigration4: true)
            try c.execute("UPDATE sessions SET installation_id = 'phone' WHERE object_id IN ('sssssssss1', 'sssssssss2')")
        }
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        let rows = try pool.withConnection { c in
            try c.query("SELECT user_id, installation_digest, session_ends_at FROM known_installations").map {
                (try $0.decode(String.self, at: 0), try $0.decode([UInt8].self, at: 1), try $0.decode(Date.self, at: 2))
            }
        }
        #expect(rows.count == 1)
        #expect(rows.first?.0 == "eeeeeeeee1" && rows.first?.1 == SHA256.digest("phone") && rows.first?.2 == later)
    }

    /// Migration 4 on a database with sessions: every session takes its last change as its last
    /// use, over more than one batch of the backfill, and the index built after it is valid.
    @Test func sessionUseMigrationBackfillsEverySessionInBatches() throws {
        let pool = try TestDatabase.create().makePool(size: 1)
        defer { pool.close() }
        try Migrator(migrations: Array(AuthMigrations.all.prefix(3))).migrate(pool)
        try pool.withConnection { c in
            try insertUser(c, id: "eeeeeeeee1", username: "e")
            try c.execute("""
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at)
                SELECT lpad(g::text, 10, '0'), sha256(convert_to(g::text, 'UTF8')), 'eeeeeeeee1', '{}', now() + interval '1 day',
                       now(), timestamptz '2020-01-01 00:00:00Z' + g * interval '1 second'
                FROM generate_series(1, 10001) g
                """)
        }
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        try pool.withConnection { c throws in
            #expect(try c.queryFirst("SELECT count(*) FROM sessions WHERE last_used_at = updated_at")?.decode(Int.self, at: 0) == 10001)
            #expect(try c.queryFirst("""
                SELECT indisvalid FROM pg_index WHERE indexrelid = 'sessions_last_used_at_idx'::regclass
                """)?.decode(Bool.self, at: 0) == true)
            #expect(try c.queryFirst("SELECT count(*) FROM schema_migration_steps")?.decode(Int.self, at: 0) == 0)
        }
    }

    /// The database cuts a stored hash's kind (migration 21's `gatehouse_password_hash_kind`, which
    /// its index is built on) with the pattern the code knows.
    @Test func theHashKindFunctionCutsWithTheCodesPattern() throws {
        let source = try pool.withConnection { c in
            try c.queryFirst("SELECT prosrc FROM pg_proc WHERE proname = 'gatehouse_password_hash_kind'")?.decode(String.self, at: 0)
        }
        #expect(source?.contains("'\(HashKinds.sqlPrefixPattern)'") == true,
                "HashKinds.sqlPrefixPattern changed: add a migration that replaces gatehouse_password_hash_kind and rebuilds its index")
        let kind = try pool.withConnection { c in
            try c.queryFirst("SELECT gatehouse_password_hash_kind(\(Self.phc))")?.decode(String?.self, at: 0)
        }
        #expect(kind == "$argon2id$v=19$m=65536,t=2,p=1")
    }
}
