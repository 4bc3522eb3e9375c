@testable import Auth
import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Signatures
import Synchronization
import TestSupport
import Testing

/// `StandbyReads` against a read database that is no standby (the real standby's cases are in
/// GatehouseServerTests' ReadScalingTests): the primary answers, and the log is not flooded.
@Suite struct StandbyReadsTests {
    let pool: Pool

    init() throws {
        pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'owner', '$argon2id$x', '{}', now(), now())
                """)
            try c.execute("""
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at, last_used_at)
                VALUES ('ssssssssss', sha256('token'::bytea), 'uuuuuuuuu1', '{}', now() + interval '1 hour', now(), now(), now())
                """)
        }
    }

    @Test func thePrimarysPositionIsANumberAndAPrimaryIsNoStandby() throws {
        let position = try #require(try UserStore(pool: pool).walPosition())
        #expect(Decimal(string: position) != nil && position.allSatisfy(\.isNumber), "\(position)")
        #expect(throws: (any Error).self) {
            try pool.withConnection { c in try StandbyReads.hasReplayed(position, on: c, waiting: 0) }
        }
    }

    /// Every batch is answered by the primary; the standby is tried again after the retry
    /// interval, and its still being unusable is reported once, not per batch.
    @Test func aReadDatabaseThatIsNoStandbyLeavesLookupsToThePrimary() throws {
        let clock = Mutex(0.0)
        let reports = Mutex<[String]>([])
        let reads = StandbyReads(
            primary: UserStore(pool: pool), standby: pool, retryInterval: 5,
            report: { event in reports.withLock { $0.append("\(event)") } }, clock: { clock.withLock { $0 } })
        let digest = SHA256.digest("token")
        for time in [0.0, 1, 6, 12, 30] {
            clock.withLock { $0 = time }
            let found = try reads.sessions(digests: [digest, SHA256.digest("other")])
            #expect(found.count == 1 && found[digest]?.user.username == "owner")
        }
        #expect(reads.counts == (standby: 0, behind: 0, unavailable: 5))
        let logged = reports.withLock { $0 }
        #expect(logged.count == 1 && logged[0].contains("not in recovery"), "\(logged)")
    }
}

