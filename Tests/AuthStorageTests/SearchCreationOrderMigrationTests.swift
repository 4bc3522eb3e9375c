import Auth
import Foundation
import Postgres
import ServerTestSupport
import Testing

/// Migration 20 over provider ids and TOTP secrets made before it: each gets its user's creation
/// time (not its own), and so does every one inserted after it, whatever the statement names.
@Suite struct SearchCreationOrderMigrationTests {
    @Test func earlierAndLaterRowsCarryTheirUsersCreationTime() throws {
        let database = try TestDatabase.create()
        let pool = database.makePool(size: 2)
        defer { pool.close() }
        try Migrator(migrations: AuthMigrations.all.filter { $0.version < 20 }).migrate(pool)
        try pool.withConnection { c in
            try c.unsafeExecuteScript("""
                INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at) VALUES
                    ('uuuuuuuuu1', 'ann', '$argon2id$x', '{}', '2021-01-01T00:00:00Z', now()),
                    ('uuuuuuuuu2', 'ben', '$argon2id$x', '{}', '2022-02-02T00:00:00Z', now());
                INSERT INTO user_identities (provider, provider_user_id, user_id, created_at)
                    VALUES ('google', 'g-1', 'uuuuuuuuu1', '2025-01-01T00:00:00Z');
                INSERT INTO user_totp (user_id, sealed_secret, last_step, created_at)
                    VALUES ('uuuuuuuuu1', '\\x00', 0, '2025-01-01T00:00:00Z');
                """)
        }
        let applied = try Migrator(migrations: AuthMigrations.all.filter { $0.version <= 20 }).migrate(pool)
        #expect(applied.map(\.version) == [20])
        try pool.withConnection { c in
            try c.unsafeExecuteScript("""
                INSERT INTO user_identities (provider, provider_user_id, user_id, created_at, user_created_at)
                    VALUES ('apple', 'a-2', 'uuuuuuuuu2', now(), '2030-01-01T00:00:00Z');
                INSERT INTO user_totp (user_id, sealed_secret, last_step, created_at) VALUES ('uuuuuuuuu2', '\\x00', 0, now());
                """)
            let rows = try c.query("""
                SELECT 'identity ' || provider, user_created_at FROM user_identities
                UNION ALL SELECT 'totp ' || user_id, user_created_at FROM user_totp ORDER BY 1
                """)
            let found = try rows.map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Date?.self, at: 1).map { Int($0.timeIntervalSince1970) } ?? -1)" }
            #expect(found == [
                "identity apple 1643760000", "identity google 1609459200", "totp uuuuuuuuu1 1609459200", "totp uuuuuuuuu2 1643760000",
            ])
        }
    }
}
