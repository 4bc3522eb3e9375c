@testable import Auth
import Foundation
import GraphQL
import Postgres
import Sodium
import Signatures
import Synchronization
import Testing
import TestSupport

/// The contract's "Rate limits hold under flooding" and "Limits cannot lock the owner out":
/// per-account counts per client network in the database (shared by instances, never evicted),
/// unknown names counted alike in bounded memory, and the owner's installation exemption.
@Suite struct LogInLimitTests {
    static func configuration(perAddress: Int = 0, perAccount: Int, lockout: LockoutPolicy? = nil) -> AuthConfiguration {
        AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: perAddress, perAccount: perAccount), lockout: lockout)
    }

    /// The result's error code, or 0 when it succeeded.
    static func outcome(_ result: ExecutionResult) -> Int {
        result.errors.isEmpty ? 0 : onlyError(result)?.code ?? -1
    }

    static let lockedMessage =
        "Your account is locked due to multiple failed login attempts. Please try again after 5 minute(s)"

    // MARK: Flooding

    /// Names that match no account, however many, cannot push a real account's count out.
    @Test func floodOfOtherNamesCannotResetAnAccountsCount() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 10), limiterCapacity: 16)
        _ = try h.signedUp("victim")
        for index in 0..<10 { #expect(Self.outcome(h.logIn("victim", "guess-\(index)")) == 101) }
        for index in 0..<200 {
            let name = "flood-\(index)-" + String(repeating: "x", count: index.isMultiple(of: 2) ? 10 : 300)
            _ = h.logIn(name, "guess")
        }
        #expect(Self.outcome(h.logIn("victim", "guess-10")) == 155)
        #expect(Self.outcome(h.logIn("victim", Harness.password)) == 155)
    }

    @Test func twoInstancesShareTheAccountCount() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 10))
        _ = try h.signedUp("alice")
        let otherPool = h.database.makePool(size: 2)
        defer { otherPool.close() }
        let clock = h.clock
        let other = AuthService(
            pool: otherPool, hashing: h.hashing, options: .init(configuration: h.auth.core.configuration, now: { clock.now() }))
        func logIn(_ service: AuthService, _ password: String) -> AuthError? {
            do {
                _ = try service.sessions.logIn(
                    username: "alice", password: password, hasAuthData: false, request: AuthRequest(clientAddress: "192.0.2.1"))
                return nil
            } catch {
                return error
            }
        }
        for index in 0..<10 {
            #expect(logIn(index.isMultiple(of: 2) ? h.auth : other, "guess-\(index)") == .invalidCredentials)
        }
        for service in [other, h.auth] {
            guard case .rateLimited(let retryAfter)? = logIn(service, Harness.password) else {
                Issue.record("the eleventh attempt was not refused")
                continue
            }
            #expect((1...900).contains(retryAfter))
        }
        // The window ends for both.
        clock.advance(by: 901)
        #expect(logIn(other, Harness.password) == nil)
    }

    // MARK: Networks

    /// Each network has its own count; over all networks, ten times the limit.
    @Test func networksAreCountedApartUnderACeiling() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 2))
        _ = try h.signedUp("alice")
        for network in 0..<10 {
            let address = "198.51.100.\(network)"
            #expect([0, 1, 2].map { _ in Self.outcome(h.logIn("alice", "wrong", address: address)) } == [101, 101, 155])
        }
        // Twenty attempts counted: the ceiling, for the right password and a new network too.
        #expect(Self.outcome(h.logIn("alice", Harness.password, address: "203.0.113.1")) == 155)
        h.clock.advance(by: 901)
        #expect(try h.loggedIn("alice", address: "203.0.113.1").hasPrefix("r:"))
    }

    /// IPv6 clients are counted by /64, for the account limit and the address limit.
    @Test func ipv6IsCountedBySlash64() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 2))
        _ = try h.signedUp("alice")
        #expect(Self.outcome(h.logIn("alice", "wrong", address: "2001:db8:0:1::1")) == 101)
        #expect(Self.outcome(h.logIn("alice", "wrong", address: "2001:db8:0:1::2")) == 101)
        #expect(Self.outcome(h.logIn("alice", "wrong", address: "2001:db8:0:1:ffff:ffff:ffff:ffff")) == 155)
        #expect(Self.outcome(h.logIn("alice", "wrong", address: "2001:db8:0:2::1")) == 101)

        let a = try Harness(configuration: Self.configuration(perAddress: 2, perAccount: 0))
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "2001:db8:0:1::1")) == 101)
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "2001:db8:0:1::2")) == 101)
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "2001:db8:0:1::3")) == 155)
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "2001:db8:0:2::1")) == 101)
        // An IPv4-mapped address is its IPv4 address.
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "192.0.2.9")) == 101)
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "::ffff:192.0.2.9")) == 101)
        #expect(Self.outcome(a.logIn("nobody", "wrong", address: "192.0.2.9")) == 155)
    }

    /// A name that matches no account gets exactly the answers an account would, so the
    /// limiter does not tell which names exist.
    @Test func unknownNamesAreLimitedLikeAccounts() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 2))
        _ = try h.signedUp("alice")
        func answers(_ name: String) -> [Int] {
            (0..<11).flatMap { network in
                (0..<3).map { _ in Self.outcome(h.logIn(name, "wrong", address: "198.51.100.\(network)")) }
            }
        }
        let account = answers("alice")
        #expect(account == Array([[Int]](repeating: [101, 101, 155], count: 10).joined()) + [155, 155, 155])
        #expect(answers("nobody") == account)
        #expect(answers("NoBody") == Array(repeating: 155, count: 33))
    }

    // MARK: The owner's exemption

    @Test func ownerWithAKnownInstallationGetsInPastTheLimit() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        _ = try h.signedUp("alice", installationId: "owner-phone")
        for _ in 0..<3 { #expect(Self.outcome(h.logIn("alice", "wrong")) == 101) }
        #expect(Self.outcome(h.logIn("alice", Harness.password)) == 155)
        #expect(Self.outcome(h.logIn("alice", Harness.password, installationId: "another-phone")) == 155)
        #expect(Self.outcome(h.logIn("alice", "wrong", installationId: "owner-phone")) == 155)
        #expect(try h.loggedIn("alice", installationId: "owner-phone").hasPrefix("r:"))
        // Still limited for everyone else.
        #expect(Self.outcome(h.logIn("alice", Harness.password)) == 155)
    }

    @Test func ownerWithAKnownInstallationGetsInPastALockout() throws {
        let h = try Harness(configuration: Self.configuration(
            perAccount: 0, lockout: LockoutPolicy(threshold: 3, durationMinutes: 5)))
        _ = try h.signedUp("alice", installationId: "owner-phone")
        for _ in 0..<3 { #expect(Self.outcome(h.logIn("alice", "wrong")) == 101) }
        #expect(try eventually { try h.count("SELECT count(*) FROM users WHERE lockout_until IS NOT NULL") == 1 })
        #expect(onlyError(h.logIn("alice", Harness.password))?.message == Self.lockedMessage)
        #expect(onlyError(h.logIn("alice", "wrong", installationId: "owner-phone"))?.message == Self.lockedMessage)
        #expect(try h.loggedIn("alice", installationId: "owner-phone").hasPrefix("r:"))
        // The lockout stays for everyone else.
        #expect(onlyError(h.logIn("alice", Harness.password))?.message == Self.lockedMessage)
    }

    /// An installation stays known for 30 days after its last session ended (log-out included).
    @Test func anInstallationIsKnownFor30DaysAfterItsLastSession() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        let first = try #require(h.signedUp("alice", installationId: "old-phone")["sessionToken"]?.stringValue)
        #expect(h.logOut(token: first).errors.isEmpty)
        h.clock.advance(by: 31 * 24 * 3600)
        let second = try h.loggedIn("alice", installationId: "new-phone")
        #expect(h.logOut(token: second).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM sessions") == 0)
        // The log-in above counted too.
        for _ in 0..<2 { #expect(Self.outcome(h.logIn("alice", "wrong")) == 101) }
        #expect(Self.outcome(h.logIn("alice", Harness.password, installationId: "old-phone")) == 155)
        #expect(try h.loggedIn("alice", installationId: "new-phone").hasPrefix("r:"))
        // Only digests are kept.
        let digests = try h.rows("SELECT installation_digest FROM known_installations ORDER BY session_ends_at")
            .map { try $0.decode([UInt8].self, at: 0) }
        #expect(digests == [SHA256.digest("old-phone"), SHA256.digest("new-phone")])
    }

    // MARK: Client networks

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
        ("[2001:db8::1]", "2001:db8::/64"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("::FFFF:c000:0201", "192.0.2.1"),
        ("fe80::1%eth0", "fe80::/64"),
        ("fe80::2%25en0", "fe80::/64"),
        ("::1", "::/64"),
    ])
    func clientNetworkKeys(_ address: String, _ key: String) {
        #expect(ClientNetwork.key(of: address) == key)
    }

    @Test(arguments: ["", "not an address", "192.0.2.1:8080", "256.1.1.1", "2001:db8::1::2", String(repeating: "1", count: 5000)])
    func anythingElseCountsAsItsDigest(_ address: String) {
        let key = ClientNetwork.key(of: address)
        #expect(key == "#" + SHA256.hexDigest(address))
        #expect(key.utf8.count == 65)
    }
}

/// The in-memory windows: bounded by construction, expired in the order they were opened.
@Suite struct RateLimiterTests {
    final class Clock: Sendable {
        let time = Mutex(1_000_000.0)
        func advance(by seconds: Double) { time.withLock { $0 += seconds } }
    }

    static func limiter(capacity: Int, clock: Clock) -> RateLimiter {
        RateLimiter(window: 60, capacity: capacity, now: { clock.time.withLock { $0 } })
    }

    @Test func countsInAlignedWindows() {
        let clock = Clock()
        let limiter = Self.limiter(capacity: 10, clock: clock)
        let key = RateLimiter.Key("a")
        #expect((0..<3).map { _ in limiter.attempt([(key, 3)]) } == [nil, nil, nil])
        // 1,000,000 s is 40 s into a 60-second window.
        #expect(limiter.attempt([(key, 3)]) == 20)
        clock.advance(by: 19.5)
        #expect(limiter.attempt([(key, 3)]) == 1)
        clock.advance(by: 0.5)
        #expect(limiter.attempt([(key, 3)]) == nil)
    }

    /// A refused attempt counts against none of its keys; a limit of 0 is off.
    @Test func aRefusedAttemptCountsNowhere() {
        let limiter = Self.limiter(capacity: 10, clock: Clock())
        let name = RateLimiter.Key("name"), other = RateLimiter.Key("other")
        #expect(limiter.attempt([(name, 1)]) == nil)
        #expect(limiter.attempt([(other, 1), (name, 1)]) != nil)
        #expect(limiter.attempt([(other, 1), (RateLimiter.Key("off"), 0)]) == nil)
        #expect(limiter.counts.windows == 2)
    }

    @Test func memoryStaysWithinCapacity() {
        let clock = Clock()
        let limiter = Self.limiter(capacity: 100, clock: clock)
        for period in 0..<5 {
            for index in 0..<2_000 {
                _ = limiter.attempt([(RateLimiter.Key("\(period)-\(index)"), 5), (RateLimiter.Key("all-\(index % 150)"), 10)])
                let counts = limiter.counts
                #expect(counts.windows <= 100 && counts.records <= 200, "\(counts)")
            }
            clock.advance(by: 60)
        }
    }

    /// A full limiter drops its oldest window, and windows of past periods drain as attempts go on.
    @Test func fullDropsTheOldestAndPastPeriodsDrain() {
        let clock = Clock()
        let limiter = Self.limiter(capacity: 2, clock: clock)
        let a = RateLimiter.Key("a"), b = RateLimiter.Key("b"), c = RateLimiter.Key("c")
        #expect(limiter.attempt([(a, 1)]) == nil)
        #expect(limiter.attempt([(b, 1)]) == nil)
        #expect(limiter.attempt([(c, 1)]) == nil)
        #expect(limiter.attempt([(b, 1)]) != nil)
        #expect(limiter.attempt([(a, 1)]) == nil)
        clock.advance(by: 60)
        #expect(limiter.attempt([(RateLimiter.Key("d"), 1)]) == nil)
        #expect(limiter.counts == (windows: 1, records: 1))
    }
}
