import Foundation

/// The access tokens of a ``GatehouseAuth``, by session and audience: each served until
/// ``refreshMargin`` before it expires, then fetched again; while one is being fetched, every
/// caller for it awaits that one request.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
final class AccessTokenCache: @unchecked Sendable {
    /// Seconds before its expiry a token stops being served: time for the request that carries it
    /// to reach the service and be checked there.
    static let refreshMargin: TimeInterval = 30

    private struct Key: Hashable {
        let sessionToken: String
        /// nil: the server's default audience.
        let audience: String?
    }

    private enum Entry {
        case ready(AccessToken)
        /// A request in flight, numbered so that its answer replaces only its own entry.
        case fetching(Task<Result<AccessToken, GatehouseError>, Never>, UInt64)
    }

    // Guarded by `lock`.
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var nextRequest: UInt64 = 0
    private var counts = (requests: 0, joined: 0)

    /// Requests started, and callers that awaited one already in flight, so far: for tests, which
    /// wait for a state, not for time.
    var requestCounts: (requests: Int, joined: Int) {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    /// The token of `sessionToken` for `audience`: the cached one while it has more than
    /// ``refreshMargin`` left at `now`, else the one `fetch` gets, shared with every caller that
    /// asks meanwhile. Entries of other sessions are dropped (a new sign-in replaced them).
    func token(
        sessionToken: String, audience: String?, now: Date,
        fetch: @escaping @Sendable () async throws(GatehouseError) -> AccessToken
    ) async throws(GatehouseError) -> AccessToken {
        switch claim(Key(sessionToken: sessionToken, audience: audience), now: now, fetch: fetch) {
        case .cached(let token): return token
        case .request(let task): return try await task.value.get()
        }
    }

    private enum Claim {
        case cached(AccessToken)
        case request(Task<Result<AccessToken, GatehouseError>, Never>)
    }

    /// The cached token of `key`, or the request to await: the one in flight, else a new one.
    private func claim(
        _ key: Key, now: Date, fetch: @escaping @Sendable () async throws(GatehouseError) -> AccessToken
    ) -> Claim {
        lock.lock()
        defer { lock.unlock() }
        entries = entries.filter { $0.key.sessionToken == key.sessionToken }
        switch entries[key] {
        case .ready(let token)? where token.expiresAt.timeIntervalSince(now) > Self.refreshMargin:
            return .cached(token)
        case .fetching(let task, _)?:
            counts.joined += 1
            return .request(task)
        default:
            break
        }
        nextRequest += 1
        counts.requests += 1
        let request = nextRequest
        // The task records its own answer, so a caller that stops waiting does not lose it for the others.
        let task = Task { [self] in
            let result = await Result { () async throws(GatehouseError) -> AccessToken in try await fetch() }
            finish(key, request, result)
            return result
        }
        entries[key] = .fetching(task, request)
        return .request(task)
    }

    /// Keeps the answer of request `request` for `key` (an error keeps nothing), unless the entry
    /// was replaced meanwhile.
    private func finish(_ key: Key, _ request: UInt64, _ result: Result<AccessToken, GatehouseError>) {
        lock.lock()
        defer { lock.unlock() }
        guard case .fetching(_, request)? = entries[key] else { return }
        switch result {
        case .success(let token): entries[key] = .ready(token)
        case .failure: entries[key] = nil
        }
    }
}

extension Result where Failure == GatehouseError {
    /// The outcome of `body`.
    init(_ body: () async throws(GatehouseError) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
