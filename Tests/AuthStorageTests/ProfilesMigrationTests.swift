import Auth
import Foundation
import Postgres
import ServerTestSupport
import Synchronization
import Testing
import TestSupport

/// Migration 12 over users made before it: no display name, no photo, no declared values; and a
/// change of the new columns alone is announced to the instances' session caches.
@Suite struct ProfilesMigrationTests {
    @Test func earlierUsersHaveNoProfileAndProfileChangesAreAnnounced() throws {
        let database = try TestDatabase.create()
        let pool = database.makePool(size: 2)
        defer { pool.close() }
        try Migrator(migrations: AuthMigrations.all.filter { $0.version < 12 }).migrate(pool)
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'ann', '$argon2id$x', '{}', now(), now())
                """)
        }
        let applied = try Migrator(migrations: AuthMigrations.all.filter { $0.version <= 12 }).migrate(pool)
        #expect(applied.map(\.version) == [12])
        try pool.withConnection { c in
            let row = try #require(try c.queryFirst("SELECT display_name, photo_url, custom_fields::text FROM users"))
            #expect(try row.decode(String?.self, at: 0) == nil)
            #expect(try row.decode(String?.self, at: 1) == nil)
            #expect(try row.decode(String.self, at: 2) == "{}")
            #expect(throws: PostgresError.self) { try c.execute("UPDATE users SET custom_fields = '[]'") }
        }

        let heard = Mutex<[String]>([])
        let listener = NotificationListener(
            configuration: ConnectionConfiguration(database.connectionString), channels: [AuthMigrations.Channel.users],
            onNotification: { notification in heard.withLock { $0.append(notification.payload) } })
        listener.start()
        defer { listener.stop() }
        #expect(eventually { listener.isConnected })
        for column in ["display_name = 'Ann'", "photo_url = 'https://example.com/a.png'", "custom_fields = '{\"bio\": \"x\"}'"] {
            let before = heard.withLock { $0.count }
            try pool.withConnection { c in try c.execute(PostgresQuery(unsafeSQL: "UPDATE users SET \(column)")) }
            #expect(eventually { heard.withLock { $0.count } == before + 1 }, "\(column)")
        }
        #expect(heard.withLock { $0 } == ["uuuuuuuuu1", "uuuuuuuuu1", "uuuuuuuuu1"])
    }
}
