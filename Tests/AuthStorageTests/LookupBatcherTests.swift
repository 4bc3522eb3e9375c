@testable import Auth
import Foundation
import Threading
import Postgres
import Sodium
import Signatures
import Synchronization
import ServerTestSupport
import Testing

/// Concurrent lookups coalesce into batches; errors reach every lookup of their batch.
@Suite struct LookupBatcherTests {
    /// A run that records its batches and, until `release` opens, blocks the first one.
    final class Recorder: Sendable {
        let batches = Lock([[Int]]())
        let release = DispatchSemaphore(value: 0)
        let firstStarted = DispatchSemaphore(value: 0)
        let started = Atomic<Int>(0)

        func run(_ keys: [Int]) throws -> [Int: String] {
            if started.add(1, ordering: .relaxed).newValue == 1 {
                firstStarted.signal()
                release.wait()
            }
            batches.withLock { $0.append(keys) }
            if keys.contains(-1) { throw PostgresError(.databaseUnavailable, message: "down") }
            return Dictionary(uniqueKeysWithValues: keys.filter { $0 % 2 == 0 }.map { ($0, "v\($0)") })
        }
    }

    @Test func waitingLookupsShareBatchesInArrivalOrder() throws {
        let recorder = Recorder()
        let batcher = LookupBatcher<Int, String>(maxBatchSize: 4, maxConcurrentBatches: 1) { try recorder.run($0) }
        let results = Lock([Int: String?]())
        let done = DispatchGroup()
        // The first lookup runs alone and is held; the ten after it queue behind it.
        done.enter()
        batcher.lookup(0) { result in
            results.withLock { $0[0] = try? result.get() }
            done.leave()
        }
        recorder.firstStarted.wait()
        for key in 1...10 {
            done.enter()
            batcher.lookup(key) { result in
                results.withLock { $0[key] = try? result.get() }
                done.leave()
            }
        }
        recorder.release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(recorder.batches.withLock { $0 } == [[0], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10]])
        results.withLock { results in
            for key in 0...10 { #expect(results[key] ?? nil == (key % 2 == 0 ? "v\(key)" : nil), "key \(key)") }
        }
    }

    @Test func aSecondBatchStartsOnlyOnceEnoughLookupsWait() throws {
        let recorder = Recorder()
        let batcher = LookupBatcher<Int, String>(maxBatchSize: 8, maxConcurrentBatches: 2, concurrentBatchThreshold: 3) {
            try recorder.run($0)
        }
        let done = DispatchGroup()
        let lookUp = { (key: Int) in
            done.enter()
            batcher.lookup(key) { _ in done.leave() }
        }
        lookUp(0)  // runs at once, alone, and is held
        recorder.firstStarted.wait()
        lookUp(1)
        lookUp(2)
        // `lookup` decides before it returns whether to start a batch.
        #expect(batcher.load == (running: 1, waiting: 2), "two waiting lookups started a batch of their own")
        lookUp(3)  // the third waiting lookup starts the second batch, beside the held one
        let deadline = ContinuousClock.now + .seconds(30)
        while recorder.batches.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(recorder.batches.withLock { $0 } == [[1, 2, 3]])
        recorder.release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(recorder.batches.withLock { $0 } == [[1, 2, 3], [0]])
    }

    @Test func blockingLookupsFromManyThreadsGetTheirOwnValues() throws {
        let recorder = Recorder()
        recorder.release.signal()  // nothing held
        let batcher = LookupBatcher<Int, String>(maxBatchSize: 64, maxConcurrentBatches: 2) { try recorder.run($0) }
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for i in 0..<50 {
                let key = thread * 100 + i
                let value = try? batcher.lookup(key)
                if value != (key % 2 == 0 ? "v\(key)" : nil) { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.map(\.count).reduce(0, +) == 800)
        #expect(batches.allSatisfy { $0.count <= 64 })
    }

    @Test func aFailedBatchFailsEachOfItsLookups() throws {
        let recorder = Recorder()
        let batcher = LookupBatcher<Int, String>(maxBatchSize: 8, maxConcurrentBatches: 1) { try recorder.run($0) }
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()
        done.enter()
        batcher.lookup(100) { _ in done.leave() }
        recorder.firstStarted.wait()
        for key in [2, -1, 4] {
            done.enter()
            batcher.lookup(key) { result in
                if case .failure(let error as PostgresError) = result, error.kind == .databaseUnavailable {
                    failures.add(1, ordering: .relaxed)
                }
                done.leave()
            }
        }
        recorder.release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(failures.load(ordering: .relaxed) == 3)
        // The next batch is unaffected.
        #expect(try batcher.lookup(6) == "v6")
    }

    @Test func aTimedOutBatchAlsoFailsTheLookupsQueuedBehindIt() throws {
        let recorder = Recorder()
        let batcher = LookupBatcher<Int, String>(
            maxBatchSize: 2, maxConcurrentBatches: 1, failsQueued: { ($0 as? PostgresError)?.kind == .databaseUnavailable }
        ) { keys in
            _ = try recorder.run(keys)
            throw PostgresError(.databaseUnavailable, message: "no connection in time")
        }
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()
        for key in 0..<6 {
            done.enter()
            batcher.lookup(key) { result in
                if case .failure = result { failures.add(1, ordering: .relaxed) }
                done.leave()
            }
            if key == 0 { recorder.firstStarted.wait() }
        }
        recorder.release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(failures.load(ordering: .relaxed) == 6)
        // One statement for the first lookup; the five queued behind it failed with it, unrun.
        #expect(recorder.batches.withLock { $0 } == [[0]])
    }
}

/// The viewer's session lookup through the batcher, against a real database.
@Suite struct SessionLookupTests {
    @Test func manyDigestsInOneStatement() throws {
        let pool = try TestDatabase.create().makePool(size: 2)
        defer { pool.close() }
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        let store = UserStore(pool: pool)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var digests: [[UInt8]] = []
        for i in 0..<3 {
            let user = User(objectId: "user\(i)aaaaa".prefix(10).description, username: "name\(i)", email: nil,
                            emailVerified: false, acl: ACL(), createdAt: now, updatedAt: now)
            let digest = SHA256.digest("token \(i)")
            digests.append(digest)
            try store.insert(user, passwordHash: "$argon2id$not-checked-here", session: UserStore.NewSession(
                session: Session(
                    objectId: "sess\(i)aaaaaa".prefix(10).description, createdAt: now, updatedAt: now,
                    expiresAt: now.addingTimeInterval(60), lastUsedAt: now, installationId: nil, action: "signup",
                    authProvider: "password", userAgent: nil),
                tokenDigest: digest))
        }
        let unknown = SHA256.digest("unknown")
        let found = try store.sessions(digests: digests + [unknown, digests[1]])
        #expect(found.count == 3)
        for (i, digest) in digests.enumerated() { #expect(found[digest]?.user.username == "name\(i)") }
        #expect(found[unknown] == nil)
        #expect(try store.sessions(digests: []).isEmpty)
    }
}
