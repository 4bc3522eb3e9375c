import Foundation
import Threading
import Testing

@Suite struct LockTests {
    @Test func serialisesUpdatesFromManyThreads() {
        let counter = Lock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func rethrowsTheBodysError() {
        struct Failure: Error {}
        let lock = Lock([Int]())
        #expect(throws: Failure.self) { try lock.withLock { (_: inout [Int]) throws(Failure) in throw Failure() } }
        // The lock was released on the way out.
        #expect(lock.withLock { $0.isEmpty })
    }
}

@Suite struct PublishedListTests {
    final class Box: Sendable {
        let id: Int
        init(_ id: Int) { self.id = id }
    }

    @Test func findsWhatWasStoredAndBuildsOncePerKey() {
        let list = PublishedList<String, Int>()
        #expect(list.value(for: "a") == nil)
        var builds = 0
        #expect(list.value(for: "a") { builds += 1; return 1 } == 1)
        #expect(list.value(for: "a") { builds += 1; return 2 } == 1)
        #expect(list.value(for: "b") { builds += 1; return 3 } == 3)
        #expect(builds == 2)
        #expect(list.value(for: "a") == 1 && list.value(for: "b") == 3)
    }

    @Test func racingWritersAllSeeTheFirstPublishedValue() {
        let list = PublishedList<Int, Box>()
        let seen = Lock([Int: Set<ObjectIdentifier>]())
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for key in 0..<200 {
                let box = list.value(for: key) { Box(key * 100 + thread) }
                seen.withLock { $0[key, default: []].insert(ObjectIdentifier(box)) }
                #expect(box.id / 100 == key)
            }
        }
        // Every thread got the same object for each key, and it is still the stored one.
        seen.withLock { seen in
            for key in 0..<200 {
                #expect(seen[key]?.count == 1)
                #expect(seen[key]?.first == list.value(for: key).map(ObjectIdentifier.init))
            }
        }
    }

    @Test func releasesItsEntries() {
        weak var stored: Box?
        do {
            let list = PublishedList<Int, Box>()
            for key in 0..<3 { _ = list.value(for: key) { Box(key) } }
            stored = list.value(for: 0)
            #expect(stored != nil)
        }
        #expect(stored == nil)
    }

    @Test func makeMayThrowWithoutStoring() {
        struct Failure: Error {}
        let list = PublishedList<Int, Int>()
        #expect(throws: Failure.self) { try list.value(for: 1) { throw Failure() } }
        #expect(list.value(for: 1) == nil)
    }
}
