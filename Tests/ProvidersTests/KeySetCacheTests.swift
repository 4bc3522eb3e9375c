import Curl
import Dispatch
import Foundation
import JSON
@testable import Providers
import Synchronization
import Testing

/// A key set URL played in memory: it serves keys under the kids it is given, with a
/// Cache-Control header, or fails with 503, and counts the GETs.
private final class FakeKeySetURL: Sendable {
    private struct State {
        var kids: [String]
        var cacheControl: String?
        var failing = false
        var gets = 0
    }
    private let state: Mutex<State>

    init(kids: [String], cacheControl: String?) { state = Mutex(State(kids: kids, cacheControl: cacheControl)) }

    var gets: Int { state.withLock { $0.gets } }
    func serve(kids: [String]) { state.withLock { $0.kids = kids } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// A cache fetching from here.
    func cache() -> KeySetCache {
        KeySetCache(url: "https://keys.example/jwks") { (_: String) throws(FetchError) in self.get() }
    }

    private func get() -> (status: Int, headers: [String: String], body: [UInt8]) {
        state.withLock { state in
            state.gets += 1
            guard !state.failing else { return (503, [:], []) }
            // RFC 7517 Appendix A.1's P-256 public key, under each kid.
            let keys: [JSON] = state.kids.map { kid in
                ["kty": "EC", "crv": "P-256", "kid": .string(kid),
                 "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"]
            }
            let headers = state.cacheControl.map { ["cache-control": $0] } ?? [:]
            return (200, headers, JSON.object(["keys": .array(keys)]).serialized())
        }
    }
}

/// When a provider's key set is fetched: at once when it has expired (one fetch for concurrent
/// log-ins), at most once a minute for an unknown kid or after a failure, the stale set answering
/// while the provider is down.
struct KeySetCacheTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func detail(_ body: () throws(ProviderFailure) -> Void) -> String? {
        do throws(ProviderFailure) {
            try body()
            return nil
        } catch {
            guard case .invalid(let detail) = error else { return nil }
            return detail
        }
    }

    /// A key the provider removed stops verifying as soon as the set's max-age has passed, even
    /// within a minute of the last fetch.
    @Test func anExpiredSetIsFetchedAgainAtOnce() throws {
        let url = FakeKeySetURL(kids: ["old"], cacheControl: "max-age=10")
        let cache = url.cache()
        _ = try cache.key(id: "old", now: start)
        _ = try cache.key(id: "old", now: start + 5)
        #expect(url.gets == 1)
        url.serve(kids: ["new"])
        #expect(detail { () throws(ProviderFailure) in _ = try cache.key(id: "old", now: start + 11) } == #"no key with kid "old" in the key set"#)
        #expect(url.gets == 2)
        _ = try cache.key(id: "new", now: start + 12)
        #expect(url.gets == 2 && cache.fetchCount == 2)
    }

    @Test func concurrentLogInsShareOneFetchAtExpiry() throws {
        let url = FakeKeySetURL(kids: ["k"], cacheControl: "max-age=10")
        let cache = url.cache()
        _ = try cache.key(id: "k", now: start)
        let found = Mutex(0)
        let later = start + 11
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if (try? cache.key(id: "k", now: later)) != nil { found.withLock { $0 += 1 } }
        }
        #expect(found.withLock { $0 } == 16)
        #expect(url.gets == 2)
    }

    @Test func aFailedFetchIsTriedAgainAfterAMinuteWhileTheStaleSetAnswers() throws {
        let url = FakeKeySetURL(kids: ["k"], cacheControl: "max-age=10")
        let cache = url.cache()
        _ = try cache.key(id: "k", now: start)
        url.fail(true)
        _ = try cache.key(id: "k", now: start + 11)
        #expect(url.gets == 2)
        _ = try cache.key(id: "k", now: start + 70)
        #expect(url.gets == 2, "within a minute of the failure")
        _ = try cache.key(id: "k", now: start + 71)
        #expect(url.gets == 3)
        url.fail(false)
        _ = try cache.key(id: "k", now: start + 131)
        #expect(url.gets == 4)
        _ = try cache.key(id: "k", now: start + 132)
        #expect(url.gets == 4, "fresh again for its max-age")
    }

    @Test func anUnknownKidInAFreshSetIsFetchedAtMostOnceAMinute() throws {
        let url = FakeKeySetURL(kids: ["k"], cacheControl: nil)
        let cache = url.cache()
        _ = try cache.key(id: "k", now: start)
        #expect(detail { () throws(ProviderFailure) in _ = try cache.key(id: "x", now: start + 59) }
            == #"no key with kid "x" in the key set (fetched again at most once a minute)"#)
        #expect(url.gets == 1)
        url.serve(kids: ["k", "x"])
        _ = try cache.key(id: "x", now: start + 60)
        #expect(url.gets == 2)
    }

    /// A token's kid is the client's text: a refusal quotes at most 64 bytes of it.
    @Test func aLongKidIsCutInTheRefusal() throws {
        let url = FakeKeySetURL(kids: ["k"], cacheControl: nil)
        let cache = url.cache()
        let kid = "k" + String(repeating: "\u{301}", count: 50_000)
        let refusal = try #require(detail { () throws(ProviderFailure) in _ = try cache.key(id: kid, now: start) })
        #expect(refusal == "no key with kid \"k" + String(repeating: "\u{301}", count: 31) + "\"… in the key set")
    }
}
