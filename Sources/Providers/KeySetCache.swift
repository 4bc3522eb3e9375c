import Curl
import Foundation
import JWT
import Threading

/// One provider's JSON Web Key Set, fetched on first use and kept for its `Cache-Control: max-age`
/// (one hour when absent).
///
/// When to fetch, for a token whose key the cached set cannot give (none fetched, expired, or
/// without the token's `kid`):
/// - the set has expired (or none was fetched yet): at once, so that a key the provider removed
///   stops verifying when its max-age says; but after a fetch that failed, again only a minute
///   later (a provider that is down costs one request a minute, not one per log-in), and the
///   cached set, even expired, keeps answering meanwhile;
/// - the set is fresh but lacks the `kid`: at most once a minute after the last fetch, so that
///   tokens naming made-up keys cannot make the server fetch at will.
///
/// Fetches are serialised by `fetching`, and a caller that waited for another's fetch looks at its
/// result first, so concurrent log-ins share one fetch. `state` is held only to read or replace the
/// cached set, so verifications with a cached key never wait for a fetch.
final class KeySetCache: Sendable {
    /// A GET: status, lower-cased response headers and body (`HTTPFetcher.get`, or a test's fake).
    typealias Fetch = @Sendable (String) throws(FetchError) -> (status: Int, headers: [String: String], body: [UInt8])

    private struct State {
        var keySet: JSONWebKeySet?
        var expires = Date.distantPast
        var lastAttempt: Date?
        var fetchCount = 0
        /// Why the last fetch failed, nil after a success.
        var lastFailure: String?
    }

    static let defaultLifetime: TimeInterval = 3600
    static let minimumInterval: TimeInterval = 60

    private let url: String
    private let fetch: Fetch
    private let state = Lock(State())
    private let fetching = Lock(())

    convenience init(url: String, fetcher: HTTPFetcher) {
        self.init(url: url) { (url) throws(FetchError) in try fetcher.get(url) }
    }

    init(url: String, fetch: @escaping Fetch) {
        self.url = url
        self.fetch = fetch
    }

    var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// The key for `keyId`, fetching the set when the rules above allow.
    func key(id keyId: String?, now: Date) throws(ProviderFailure) -> JSONWebKey {
        if let key = cachedKey(keyId, now: now) { return key }
        return try fetching.withLock { _ throws(ProviderFailure) -> JSONWebKey in
            // Another thread may have fetched while this one waited.
            if let key = cachedKey(keyId, now: now) { return key }
            let (cached, expires, lastAttempt, lastFailure) = state.withLock { ($0.keySet, $0.expires, $0.lastAttempt, $0.lastFailure) }
            let expired = cached == nil || now >= expires
            let attemptedRecently = lastAttempt.map { now.timeIntervalSince($0) < Self.minimumInterval } ?? false
            // Expired: fetch unless the last attempt failed within the minute. Fresh: the kid is unknown.
            let mayFetch = expired ? !(attemptedRecently && lastFailure != nil) : !attemptedRecently
            guard mayFetch else {
                guard let cached else {
                    throw .invalid(detail: "no key set: \(lastFailure ?? "not fetched") (fetched again at most once a minute)")
                }
                guard let key = cached.key(id: keyId) else {
                    throw .invalid(detail: "no key with kid \(ProviderFailure.quoted(keyId)) in the key set (fetched again at most once a minute)")
                }
                return key
            }
            state.withLock { $0.lastAttempt = now; $0.fetchCount += 1 }
            let keySet: JSONWebKeySet
            do throws(ProviderFailure) {
                let (fetched, lifetime) = try fetchSet()
                keySet = fetched
                state.withLock {
                    $0.keySet = fetched
                    $0.expires = now.addingTimeInterval(lifetime)
                    $0.lastFailure = nil
                }
            } catch {
                if case .invalid(let detail) = error { state.withLock { $0.lastFailure = detail } }
                // An unreachable provider: the last set it served keeps working.
                guard let cached else { throw error }
                keySet = cached
            }
            guard let key = keySet.key(id: keyId) else {
                throw .invalid(detail: "no key with kid \(ProviderFailure.quoted(keyId)) in the key set")
            }
            return key
        }
    }

    private func cachedKey(_ keyId: String?, now: Date) -> JSONWebKey? {
        state.withLock { state in
            guard let keySet = state.keySet, now < state.expires else { return nil }
            return keySet.key(id: keyId)
        }
    }

    private func fetchSet() throws(ProviderFailure) -> (JSONWebKeySet, TimeInterval) {
        let response: (status: Int, headers: [String: String], body: [UInt8])
        do { response = try fetch(url) } catch {
            throw .invalid(detail: "key set fetch failed: \(error)")
        }
        guard response.status == 200 else {
            throw .invalid(detail: "key set fetch failed: HTTP status \(response.status) from \(url)")
        }
        let keySet: JSONWebKeySet
        do { keySet = try JSONWebKeySet(data: response.body) } catch {
            throw .invalid(detail: "the key set from \(url) is not valid: \(error)")
        }
        return (keySet, Self.maxAge(response.headers["cache-control"]) ?? Self.defaultLifetime)
    }

    /// The `max-age` of a Cache-Control value, in seconds.
    static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                return TimeInterval(seconds)
            }
        }
        return nil
    }
}
