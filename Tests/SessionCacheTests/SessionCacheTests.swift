@testable import Auth
import Foundation
@testable import GatehouseServer
import Postgres
import Sodium
import Signatures
import Synchronization
import Testing
import ServerTestSupport
import TestSupport

/// The per-instance session cache: unit behaviour, and invalidation across two
/// instances on one database through LISTEN/NOTIFY.
@Suite struct SessionCacheUnitTests {
    final class FakeClock: Sendable {
        let time = Mutex(0.0)
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
        var now: Double { time.withLock { $0 } }
    }

    static let user = User(
        objectId: "aaaaaaaaaa", username: "u", email: nil, emailVerified: false, acl: ACL(),
        createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    static let session = Session(
        objectId: "bbbbbbbbbb", createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0),
        expiresAt: .distantFuture, lastUsedAt: Date(timeIntervalSince1970: 0), installationId: nil, action: "login",
        authProvider: "password", userAgent: nil)

    func stored(_ cache: SessionCache, _ digest: [UInt8], user: User = Self.user) {
        cache.store(digest, user: user, session: Self.session, ifGeneration: cache.generation)
    }

    @Test func servesOnlyWhileLive() {
        let cache = SessionCache()
        stored(cache, [1])
        #expect(cache.lookup([1]) == nil, "not live yet: nothing stored or served")
        cache.reset(live: true)
        stored(cache, [1])
        #expect(cache.lookup([1])?.user == Self.user)
        cache.reset(live: false)
        #expect(cache.lookup([1]) == nil)
        #expect(cache.count == 0)
    }

    @Test func hardTTL() {
        let clock = FakeClock()
        let cache = SessionCache(ttl: 5, clock: { clock.now })
        cache.reset(live: true)
        stored(cache, [1])
        clock.advance(4.9)
        #expect(cache.lookup([1]) != nil)
        clock.advance(0.2)
        #expect(cache.lookup([1]) == nil)
    }

    @Test func aLookupThatRacedAnInvalidationDoesNotStore() {
        let cache = SessionCache()
        cache.reset(live: true)
        let generation = cache.generation
        cache.invalidate(digest: [9])  // a logOut elsewhere, while this lookup read the database
        cache.store([1], user: Self.user, session: Self.session, ifGeneration: generation)
        #expect(cache.lookup([1]) == nil)
    }

    @Test func invalidatesByDigestHexAndByUser() {
        let cache = SessionCache()
        cache.reset(live: true)
        stored(cache, [0xAB, 0x01])
        stored(cache, [0x02])
        cache.invalidate(digestHex: "ab01")
        #expect(cache.lookup([0xAB, 0x01]) == nil)
        #expect(cache.lookup([0x02]) != nil)
        cache.invalidate(userId: Self.user.objectId)
        #expect(cache.lookup([0x02]) == nil)
    }

    @Test func boundedSize() {
        let cache = SessionCache(capacity: 3)
        cache.reset(live: true)
        for i in 0..<10 { stored(cache, [UInt8(i)]) }
        #expect(cache.count == 3)
    }

    /// Expired entries leave on the next store, though their tokens never come back.
    @Test func expiredEntriesLeaveWithoutBeingLookedUp() {
        let clock = FakeClock()
        let cache = SessionCache(ttl: 5, clock: { clock.now })
        cache.reset(live: true)
        for i in 0..<100 { stored(cache, [UInt8(i)]) }
        clock.advance(3)
        stored(cache, [200])
        #expect(cache.count == 101)
        clock.advance(2.5)  // the first hundred are 5.5 s old, [200] 2.5 s
        stored(cache, [201])
        #expect(cache.count == 2)
        #expect(cache.lookup([200]) != nil && cache.lookup([201]) != nil)
    }

    /// Full, it drops the entry stored longest ago; storing a token again makes it young.
    @Test func aFullCacheDropsTheOldestStored() {
        let clock = FakeClock()
        let cache = SessionCache(capacity: 3, ttl: 100, clock: { clock.now })
        cache.reset(live: true)
        for digest: [UInt8] in [[1], [2], [3]] {
            stored(cache, digest)
            clock.advance(1)
        }
        stored(cache, [1])  // again: now the youngest
        clock.advance(1)
        stored(cache, [4])
        #expect(cache.count == 3)
        #expect(cache.lookup([2]) == nil)
        #expect(cache.lookup([1]) != nil && cache.lookup([3]) != nil && cache.lookup([4]) != nil)
        cache.invalidate(digest: [3])
        stored(cache, [5])  // room after the invalidation: nothing else leaves
        #expect(cache.count == 3 && cache.lookup([1]) != nil && cache.lookup([4]) != nil)
    }
}

/// Two instances (each its own pool, cache and notification listener) on one database.
@Suite(.serialized) struct SessionCacheClusterTests {
    struct Instance {
        let auth: AuthService
        let cache: SessionCache
        let listener: NotificationListener
        let pool: Pool
    }

    static func instance(
        _ database: TestDatabase, hashing: PasswordHashingPool, now: @escaping @Sendable () -> Date = { Date() },
        userFields: UserFields = .none
    ) -> Instance {
        var settings = Settings()
        settings.sessionCacheTTL = 60
        let connection = ConnectionConfiguration(database.connectionString)
        let (cache, listener) = GatehouseServer.sessionCache(settings, connection, Logger(level: .error, write: { _ in }))
        let pool = database.makePool()
        let auth = AuthService(
            pool: pool, hashing: hashing,
            options: .init(
                configuration: AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), userFields: userFields),
                sessionCache: cache, now: now))
        return Instance(auth: auth, cache: cache!, listener: listener!, pool: pool)
    }

    static func setUp(
        now: @escaping @Sendable () -> Date = { Date() }, userFields: UserFields = .none
    ) throws -> (TestDatabase, Instance, Instance, PasswordHashingPool) {
        let database = try TestDatabase.create()
        let migrationPool = database.makePool(size: 1)
        _ = try Migrator(migrations: AuthMigrations.all).migrate(migrationPool)
        migrationPool.close()
        let hashing = PasswordHashingPool(hasher: try PasswordHasher(cost: .minimum), workers: 2)
        let a = instance(database, hashing: hashing, now: now, userFields: userFields)
        let b = instance(database, hashing: hashing, now: now, userFields: userFields)
        #expect(eventually { a.cache.isLive && b.cache.isLive })
        return (database, a, b, hashing)
    }

    static func tearDown(_ instances: Instance..., hashing: PasswordHashingPool) {
        for instance in instances {
            instance.listener.stop()
            instance.pool.close()
        }
        hashing.shutdown()
    }

    @Test func logOutOnOneInstanceEndsTheSessionOnTheOther() throws {
        let (_, a, b, hashing) = try Self.setUp()
        defer { Self.tearDown(a, b, hashing: hashing) }
        let request = AuthRequest(clientAddress: "127.0.0.1")
        _ = try a.auth.sessions.signUp(SignUpFields(username: "carol", password: "larch-ridge-123"), request: request)
        // How quickly (the target is 50 ms) is measured by bench/cache-invalidation.sh, not here.
        for _ in 0..<100 {
            let grant = try a.auth.sessions.logIn(username: "carol", password: "larch-ridge-123", hasAuthData: false, request: request)
            _ = try b.auth.sessions.viewer(token: grant.sessionToken)  // now cached on b
            _ = try b.auth.sessions.viewer(token: grant.sessionToken)
            try a.auth.sessions.logOut(token: grant.sessionToken)
            let ended = eventually {
                do { _ = try b.auth.sessions.viewer(token: grant.sessionToken); return false } catch { return (error as? AuthError) == .invalidSession }
            }
            #expect(ended, "the token kept working on the other instance")
        }
    }

    @Test func userChangesReachTheOtherInstancesCache() throws {
        let (database, a, b, hashing) = try Self.setUp()
        defer { Self.tearDown(a, b, hashing: hashing) }
        let grant = try a.auth.sessions.signUp(
            SignUpFields(username: "dave", password: "larch-ridge-123", email: "dave@example.com"),
            request: AuthRequest(clientAddress: "127.0.0.1"))
        #expect(try b.auth.sessions.viewer(token: grant.sessionToken).user.email == "dave@example.com")
        let connection = try database.connect()
        try connection.execute("UPDATE users SET email = 'dave@example.org', updated_at = now() WHERE object_id = \(grant.user.objectId)")
        #expect(eventually { (try? b.auth.sessions.viewer(token: grant.sessionToken).user.email) == "dave@example.org" })
        try connection.execute("DELETE FROM users WHERE object_id = \(grant.user.objectId)")
        #expect(eventually { (try? b.auth.sessions.viewer(token: grant.sessionToken)) == nil })
        connection.close()
    }

    /// A profile change through `updateUser` on one instance: its own cache answers with the new
    /// profile at once, the other's as soon as the notification arrives.
    @Test func profileChangesReachBothInstancesCaches() throws {
        let (_, a, b, hashing) = try Self.setUp()
        defer { Self.tearDown(a, b, hashing: hashing) }
        let request = AuthRequest(clientAddress: "127.0.0.1")
        let grant = try a.auth.sessions.signUp(
            SignUpFields(username: "fred", password: "larch-ridge-123", profile: ["displayName": "Fred"]), request: request)
        for instance in [a, b] { #expect(try instance.auth.sessions.viewer(token: grant.sessionToken).user.displayName == "Fred") }
        _ = try a.auth.accounts.updateUser(
            id: grant.user.objectId, changes: UserChanges(profile: ["displayName": "Frederick", "photoURL": "https://example.com/f.png"]),
            currentPassword: nil, caller: grant, request: request)
        let seenOnA = try a.auth.sessions.viewer(token: grant.sessionToken).user
        #expect(seenOnA.displayName == "Frederick")
        #expect(seenOnA.photoURL == "https://example.com/f.png")
        #expect(eventually { (try? b.auth.sessions.viewer(token: grant.sessionToken).user.displayName) == "Frederick" })
        #expect(try b.auth.sessions.viewer(token: grant.sessionToken).user.photoURL == "https://example.com/f.png")
    }

    /// The same for a declared field: an update on one instance is what the next viewer on the
    /// other sees.
    @Test func declaredFieldChangesReachBothInstancesCaches() throws {
        let (_, a, b, hashing) = try Self.setUp(userFields: UserFields([UserFields.Field(name: "bio", type: .string)]))
        defer { Self.tearDown(a, b, hashing: hashing) }
        let request = AuthRequest(clientAddress: "127.0.0.1")
        let grant = try a.auth.sessions.signUp(
            SignUpFields(username: "gwen", password: "larch-ridge-123", profile: ["bio": "First"]), request: request)
        for instance in [a, b] { #expect(try instance.auth.sessions.viewer(token: grant.sessionToken).user.fields["bio"] == "First") }
        _ = try a.auth.accounts.updateUser(
            id: grant.user.objectId, changes: UserChanges(profile: ["bio": "Second"]), currentPassword: nil, caller: grant, request: request)
        #expect(try a.auth.sessions.viewer(token: grant.sessionToken).user.fields["bio"] == "Second")
        #expect(eventually { (try? b.auth.sessions.viewer(token: grant.sessionToken).user.fields["bio"]) == "Second" })
    }

    @Test func aDroppedNotificationConnectionEmptiesTheCacheAndItRefills() throws {
        let (database, a, b, hashing) = try Self.setUp()
        defer { Self.tearDown(a, b, hashing: hashing) }
        let grant = try a.auth.sessions.signUp(SignUpFields(username: "erin", password: "larch-ridge-123"), request: AuthRequest(clientAddress: "127.0.0.1"))
        _ = try b.auth.sessions.viewer(token: grant.sessionToken)
        #expect(b.cache.count == 1)
        let connection = try database.connect()
        // Terminate every listening backend of this database (both instances').
        try connection.execute("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
            """)
        #expect(eventually { !b.cache.isLive || b.cache.count == 0 })
        // While it reconnects, viewer still answers correctly (from the database).
        try connection.execute("DELETE FROM sessions WHERE user_id = \(grant.user.objectId)")
        #expect(eventually { (try? b.auth.sessions.viewer(token: grant.sessionToken)) == nil })
        #expect(eventually { b.cache.isLive }, "the listener reconnects")
        let again = try a.auth.sessions.logIn(username: "erin", password: "larch-ridge-123", hasAuthData: false, request: AuthRequest(clientAddress: "127.0.0.1"))
        _ = try b.auth.sessions.viewer(token: again.sessionToken)
        #expect(b.cache.count == 1, "the cache refills")
        connection.close()
    }

    /// A revoked session's token answers 209 at once on the instance that revoked it (which had
    /// it cached) and as soon as the notification arrives on the other.
    @Test func revokedSessionsEndOnBothInstances() throws {
        let (_, a, b, hashing) = try Self.setUp()
        defer { Self.tearDown(a, b, hashing: hashing) }
        let request = AuthRequest(clientAddress: "127.0.0.1")
        let mine = try a.auth.sessions.signUp(SignUpFields(username: "gina", password: "larch-ridge-123"), request: request)
        let phone = try a.auth.sessions.logIn(username: "gina", password: "larch-ridge-123", hasAuthData: false, request: request)
        let tablet = try a.auth.sessions.logIn(username: "gina", password: "larch-ridge-123", hasAuthData: false, request: request)
        func ended(_ instance: Instance, _ grant: SessionGrant) -> Bool {
            do { _ = try instance.auth.sessions.viewer(token: grant.sessionToken); return false } catch { return error == .invalidSession }
        }
        for instance in [a, b] {
            for grant in [mine, phone, tablet] { _ = try instance.auth.sessions.viewer(token: grant.sessionToken) }
            #expect(instance.cache.count == 3)
        }
        try a.auth.sessions.revokeSession(id: phone.session.globalId, caller: mine)
        #expect(ended(a, phone))
        #expect(eventually { ended(b, phone) })
        #expect(try b.auth.sessions.revokeOtherSessions(caller: mine) == 1)
        #expect(ended(b, tablet))
        #expect(eventually { ended(a, tablet) })
        for instance in [a, b] { #expect(try instance.auth.sessions.viewer(token: mine.sessionToken).session == mine.session) }
    }

    /// Recording a session's use changes nothing other instances cache: the trigger does not
    /// announce `last_used_at`, so the other instance keeps its entry.
    @Test func recordingAUseLeavesTheOtherInstancesCache() throws {
        let offset = Mutex<TimeInterval>(0)
        let (_, a, b, hashing) = try Self.setUp(now: { Date().addingTimeInterval(offset.withLock { $0 }) })
        defer { Self.tearDown(a, b, hashing: hashing) }
        let request = AuthRequest(clientAddress: "127.0.0.1")
        let used = try a.auth.sessions.signUp(SignUpFields(username: "hank", password: "larch-ridge-123"), request: request)
        _ = try b.auth.sessions.viewer(token: used.sessionToken)
        offset.withLock { $0 += Session.lastUseResolution + 1 }
        _ = try a.auth.sessions.viewer(token: used.sessionToken)
        #expect(eventually { a.auth.sessions.sessionUse.stats == .init(pending: 0, busy: false, statements: 1, rowsWritten: 1) })
        // A later notification from the same database has arrived once its entry is gone; the
        // touch's would have come before it.
        let other = try a.auth.sessions.signUp(SignUpFields(username: "ivan", password: "larch-ridge-123"), request: request)
        _ = try b.auth.sessions.viewer(token: other.sessionToken)
        #expect(b.cache.count == 2)
        try a.auth.sessions.logOut(token: other.sessionToken)
        #expect(eventually { b.cache.count == 1 })
        #expect(b.cache.lookup(SHA256.digest(used.sessionToken)) != nil)
    }
}
