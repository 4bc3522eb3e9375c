@testable import Auth
import Foundation
import Postgres
import ServerTestSupport
import Testing

/// `users(where, order, first, after)` reads no more of the users table than its page needs: with
/// 20,000 users (analysed, so the planner knows the table is large and what is rare), the plan of
/// each filter and order, on the first page and after a cursor, has no sequential scan of `users`.
@Suite struct UserSearchPlanTests {
    let pool: Pool

    init() throws {
        pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        try pool.withConnection { connection in
            try connection.unsafeExecuteScript("""
                INSERT INTO users (object_id, username, email, password_hash, email_verified, acl, created_at, updated_at, disabled_at)
                SELECT lpad(i::text, 10, '0'), 'user' || i, 'user' || i || '@example.com', '$argon2id$x', i % 2 = 0, '{}',
                       timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01',
                       CASE WHEN i % 1000 = 0 THEN timestamptz '2026-06-01' END
                FROM generate_series(1, 20000) AS i;
                INSERT INTO user_identities (provider, provider_user_id, user_id, created_at)
                SELECT 'google', 'g' || i, lpad(i::text, 10, '0'), now() FROM generate_series(1, 20000, 100) AS i;
                INSERT INTO user_totp (user_id, sealed_secret, last_step, created_at)
                SELECT lpad(i::text, 10, '0'), '\\x00', 0, now() FROM generate_series(7, 20000, 100) AS i;
                ANALYZE users; ANALYZE user_identities; ANALYZE user_totp;
                """)
        }
    }

    /// The searches of one filter each (and two together).
    static let searches: [(String, UserSearch)] = [
        ("no condition", UserSearch()),
        ("objectId", UserSearch(objectId: "0000000042")),
        ("username equalTo", UserSearch(username: .init(equalTo: "USER42"))),
        ("username startsWith", UserSearch(username: .init(startsWith: "user123"))),
        ("email equalTo", UserSearch(email: .init(equalTo: "user42@example.com"))),
        ("email startsWith", UserSearch(email: .init(startsWith: "user4"))),
        ("emailVerified true", UserSearch(emailVerified: true)),
        ("emailVerified false", UserSearch(emailVerified: false)),
        ("disabled true", UserSearch(disabled: true)),
        ("disabled false", UserSearch(disabled: false)),
        ("createdAt range", UserSearch(
            createdAfter: Date(timeIntervalSince1970: 1_767_225_600 + 600_000), createdBefore: Date(timeIntervalSince1970: 1_767_225_600 + 606_000))),
        ("authProvider", UserSearch(authProvider: "google")),
        ("mfa true", UserSearch(mfa: true)),
        ("mfa false", UserSearch(mfa: false)),
        ("username startsWith and emailVerified", UserSearch(username: .init(startsWith: "user1"), emailVerified: true)),
    ]

    static let orders: [UserSearch.Order] = UserSearch.Order.allCases

    /// The plan of `query`, one line per node.
    func plan(_ query: PostgresQuery) throws -> String {
        try pool.withConnection { connection in
            try connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, bindings: query.bindings))
                .map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
        }
    }

    @Test(arguments: orders)
    func noFilterScansTheUsersTable(order: UserSearch.Order) throws {
        let store = UserSearchStore(pool: pool)
        for (name, base) in Self.searches {
            var search = base
            search.order = order
            search.first = 20
            let first = try plan(UserSearchStore.pageQuery(search, after: nil))
            #expect(!first.contains("Seq Scan on users"), "\(name), \(order.rawValue):\n\(first)")
            // The same search after a cursor from its first page.
            let page = try store.page(search, after: nil)
            guard let cursor = page.users.last?.1 else { continue }
            let next = try plan(UserSearchStore.pageQuery(search, after: cursor))
            #expect(!next.contains("Seq Scan on users"), "\(name), \(order.rawValue), after a cursor:\n\(next)")
        }
    }

    /// The rows `query` returns, and the `users` rows its plan read (by any scan): the change of
    /// the transaction's counters (which hold the connection's counts not yet reported too).
    struct Reads {
        let pool: Pool

        func usersRead(_ query: PostgresQuery) throws -> (rows: Int, read: Int) {
            try pool.withConnection { connection in
                try connection.transaction { tx in
                    func read() throws -> Int {
                        try tx.queryFirst("""
                            SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables WHERE relname = 'users'
                            """)?.decode(Int.self, at: 0) ?? 0
                    }
                    let before = try read()
                    let rows = try tx.query(query).count
                    return (rows, try read() - before)
                }
            }
        }
    }

    func usersRead(_ query: PostgresQuery) throws -> (rows: Int, read: Int) { try Reads(pool: pool).usersRead(query) }

    /// A page of a provider's users, or of those with TOTP on, in a creation order reads about as
    /// many users as it returns (at most twice), though they are 1 % of the users: it walks the
    /// provider's ids or the TOTP secrets by their users' creation time. A probe per user would
    /// read a hundred users per user returned; fetching every match to sort them, all 200. Their
    /// counts read no user.
    @Test(arguments: [UserSearch.Order.createdAtDescending, .createdAtAscending])
    func aProvidersPageReadsOnlyItsUsers(order: UserSearch.Order) throws {
        let store = UserSearchStore(pool: pool)
        let searches = [
            UserSearch(authProvider: "google"), UserSearch(mfa: true),
            UserSearch(createdAfter: Date(timeIntervalSince1970: 1_767_225_600 + 60_000), authProvider: "google"),
        ]
        for base in searches {
            var search = base
            search.order = order
            search.first = 20
            let first = try usersRead(UserSearchStore.pageQuery(search, after: nil))
            #expect(first.rows == 21 && first.read <= 42, "\(search): \(first)")
            let cursor = try #require(try store.page(search, after: nil).users.last?.1)
            let next = try usersRead(UserSearchStore.pageQuery(search, after: cursor))
            #expect(next.rows == 21 && next.read <= 42, "\(search), after a cursor: \(next)")
            #expect(try usersRead(UserSearchStore.countQuery(search)).read == 0, "\(search), count")
        }
    }

    /// A page of a rare email prefix in a creation order reads about its matches and its own rows,
    /// not a user per user skipped: 111 of 20,000 users ("user42…"), created in an order unrelated
    /// to their names (as sign-ups are) and vacuumed (as autovacuum keeps a table). Walking the
    /// creation order instead reads about 180 users per user shown (about 3,800 for this page).
    @Test(arguments: [UserSearch.Order.createdAtDescending, .createdAtAscending])
    func aRareEmailPrefixPageDoesNotWalkTheCreationOrder(order: UserSearch.Order) throws {
        let pool = try TestDatabase.create().makePool(size: 1)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        try pool.withConnection { connection in
            try connection.unsafeExecuteScript("""
                INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
                SELECT lpad(i::text, 10, '0'), 'user' || i, 'user' || i || '@example.com', '$argon2id$x', '{}',
                       timestamptz '2026-01-01' + (i * 7919 % 20000) * interval '1 minute', timestamptz '2026-01-01'
                FROM generate_series(1, 20000) AS i;
                """)
            try connection.unsafeExecuteScript("VACUUM ANALYZE users")
        }
        let plans = UserSearchPlanTests.Reads(pool: pool)
        let store = UserSearchStore(pool: pool)
        let search = UserSearch(email: .init(startsWith: "USER42"), order: order, first: 20)
        let first = try plans.usersRead(UserSearchStore.pageQuery(search, after: nil))
        #expect(first.rows == 21 && first.read <= 111 + 42, "\(first)")
        let page = try store.page(search, after: nil)
        let times = page.users.map(\.0.createdAt)
        #expect(times == times.sorted(by: order == .createdAtAscending ? (<) : (>)))
        #expect(page.users.allSatisfy { $0.0.email?.hasPrefix("user42") == true })
        let cursor = try #require(page.users.last?.1)
        let next = try plans.usersRead(UserSearchStore.pageQuery(search, after: cursor))
        #expect(next.rows == 21 && next.read <= 111 + 42, "after a cursor: \(next)")
    }

    /// A page of disabled users in the username order reads its own rows (the partial index of
    /// their usernames, migration 23): 2,000 of 20,000 users disabled, so walking every username
    /// reads about ten users per user shown, and sorting the disabled ones reads all 2,000.
    @Test func aPageOfDisabledUsersByUsernameReadsOnlyItsUsers() throws {
        let pool = try TestDatabase.create().makePool(size: 1)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        try pool.withConnection { connection in
            try connection.unsafeExecuteScript("""
                INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at, disabled_at)
                SELECT lpad(i::text, 10, '0'), 'user' || i, 'user' || i || '@example.com', '$argon2id$x', '{}',
                       timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01',
                       CASE WHEN i % 10 = 3 THEN timestamptz '2026-06-01' END
                FROM generate_series(1, 20000) AS i;
                """)
            try connection.unsafeExecuteScript("VACUUM ANALYZE users")
        }
        let reads = UserSearchPlanTests.Reads(pool: pool)
        let store = UserSearchStore(pool: pool)
        let search = UserSearch(disabled: true, order: .usernameAscending, first: 20)
        let first = try reads.usersRead(UserSearchStore.pageQuery(search, after: nil))
        #expect(first.rows == 21 && first.read <= 42, "\(first)")
        let page = try store.page(search, after: nil)
        #expect(page.users.map(\.0.username).prefix(3) == ["user10003", "user10013", "user10023"])
        #expect(page.users.allSatisfy { $0.0.disabled })
        let cursor = try #require(page.users.last?.1)
        let next = try reads.usersRead(UserSearchStore.pageQuery(search, after: cursor))
        #expect(next.rows == 21 && next.read <= 42, "after a cursor: \(next)")
    }

    /// The page statements find what the conditions say, in order (the plans above are of these).
    @Test func pagesFollowTheirOrder() throws {
        let store = UserSearchStore(pool: pool)
        let newest = try store.page(UserSearch(first: 3), after: nil)
        #expect(newest.users.map(\.0.username) == ["user20000", "user19999", "user19998"])
        #expect(newest.more)
        let next = try store.page(UserSearch(first: 2), after: newest.users.last!.1)
        #expect(next.users.map(\.0.username) == ["user19997", "user19996"])
        let disabled = try store.page(UserSearch(disabled: true, order: .createdAtAscending, first: 100), after: nil)
        #expect(disabled.users.count == 20 && disabled.users.allSatisfy(\.0.disabled) && !disabled.more)
        let byName = try store.page(UserSearch(username: .init(startsWith: "USER1999"), order: .usernameAscending), after: nil)
        #expect(byName.users.map(\.0.username) == ["user1999"] + (0...9).map { "user1999\($0)" })
        #expect(try store.count(UserSearch(authProvider: "google")) == 200)
        #expect(try store.count(UserSearch(emailVerified: false, mfa: true)) == 200)
    }
}
