import Auth
import AuthGraphQL
import Foundation
import GraphQL
import Sodium
import Synchronization
import Testing
import TestSupport

/// Rate limits (per address, per account, per field execution) and account lockout.
@Suite struct AbuseLimitTests {
    static func configuration(perAddress: Int, perAccount: Int, lockout: LockoutPolicy? = nil) -> AuthConfiguration {
        AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: perAddress, perAccount: perAccount), lockout: lockout)
    }

    static func isRateLimited(_ result: ExecutionResult) -> Bool {
        onlyError(result).map { $0.code == 155 && $0.message == "Too many requests." } ?? false
    }

    @Test func logInIsLimitedPerAddress() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 3, perAccount: 0))
        let attempts = (0..<4).map { h.request(Queries.logIn, variables: ["input": ["username": .string("user\($0)"), "password": "larch-ridge-11"]]) }
        for attempt in attempts.prefix(3) { #expect(onlyError(attempt.result)?.code == 101, "\(attempt.result.json)") }
        let refused = try #require(attempts.last)
        #expect(Self.isRateLimited(refused.result), "\(refused.result.json)")
        #expect(refused.result.data == ["logIn": .null])
        #expect(refused.context.recordedRefusals.count == 1)
        guard case .rateLimited(let retryAfter)? = refused.context.recordedRefusals.first else {
            Issue.record("no rateLimited refusal: \(refused.context.recordedRefusals)")
            return
        }
        #expect((1...60).contains(retryAfter))
        #expect(attempts[0].context.recordedRefusals.isEmpty)
        // Another address is not affected; the window ends.
        #expect(onlyError(h.logIn("user0", "larch-ridge-11", address: "198.51.100.7"))?.code == 101)
        h.clock.advance(by: 61)
        #expect(onlyError(h.logIn("user0", "larch-ridge-11"))?.code == 101)
    }

    @Test func signUpIsLimitedPerAddress() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 2, perAccount: 0))
        #expect(h.signUp(["username": "a", "password": "larch-ridge-11"]).errors.isEmpty)
        #expect(onlyError(h.signUp(["username": "a", "password": "larch-ridge-11"]))?.code == 202)
        let (refused, context) = h.request(Queries.signUp, variables: ["input": ["fields": ["username": "b", "password": "larch-ridge-11"]]])
        #expect(Self.isRateLimited(refused), "\(refused.json)")
        #expect(context.recordedRefusals.count == 1)
        #expect(h.signUp(["username": "b", "password": "larch-ridge-11"], address: "198.51.100.7").errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM users") == 2)
    }

    static func aliasedLogIns(_ count: Int, username: (Int) -> String) -> String {
        "mutation {\n" + (1...count).map {
            #"  a\#($0): logIn(input: {username: "\#(username($0))", password: "guess-\#($0)"}) { viewer { sessionToken } }"#
        }.joined(separator: "\n") + "\n}"
    }

    /// One request with 5 aliased logIn fields is 5 attempts (alias brute force).
    @Test(arguments: ["address", "account"])
    func aliasedLogInsCountOncePerField(_ limit: String) throws {
        let perAddress = limit == "address" ? 3 : 0, perAccount = limit == "account" ? 3 : 0
        let h = try Harness(configuration: Self.configuration(perAddress: perAddress, perAccount: perAccount))
        // Signed up from another address: signUp counts against its address too.
        #expect(h.signUp(["username": "alice", "password": .string(Harness.password)], address: "203.0.113.1").errors.isEmpty)
        let (result, context) = h.request(Self.aliasedLogIns(5) { _ in "alice" })
        #expect(result.errors.count == 5, "\(result.json)")
        for (index, error) in result.errors.enumerated() {
            #expect(error.path == [.key("a\(index + 1)")])
            #expect(error.extensions?["code"] == (index < 3 ? 101 : 155), "\(error)")
        }
        #expect(context.recordedRefusals.count == 2)
        #expect(context.recordedRefusals.allSatisfy { if case .rateLimited = $0 { true } else { false } })
        // The right password is refused now too.
        #expect(Self.isRateLimited(h.logIn("alice", Harness.password)))
    }

    @Test func logInIsLimitedPerAccountAndNetwork() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 0, perAccount: 3))
        _ = try h.signedUp("alice")
        _ = try h.signedUp("bob")
        for _ in 0..<3 {
            #expect(onlyError(h.logIn("alice", "wrong", address: "198.51.100.1"))?.code == 101)
        }
        // In another case: the same account; the right password too.
        #expect(Self.isRateLimited(h.logIn("ALICE", Harness.password, address: "198.51.100.1")))
        // Another network is counted on its own; another account is not affected.
        #expect(try h.loggedIn("alice", address: "203.0.113.9").hasPrefix("r:"))
        #expect(try h.loggedIn("bob", address: "198.51.100.1").hasPrefix("r:"))
    }

    /// The account limit counts the account, however it is named: by username or by email.
    @Test func accountLimitCountsUsernameAndEmailTogether() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 0, perAccount: 3))
        _ = try h.signedUp("alice", email: "alice@example.com")
        #expect(onlyError(h.logIn("alice", "wrong"))?.code == 101)
        #expect(onlyError(h.logIn("alice@example.com", "wrong"))?.code == 101)
        #expect(onlyError(h.logIn("ALICE", "wrong"))?.code == 101)
        #expect(Self.isRateLimited(h.logIn("Alice@Example.com", Harness.password)))
        #expect(Self.isRateLimited(h.logIn("alice", Harness.password)))
    }

    /// 0 turns a limit off; the defaults are 100 per address and 10 per account.
    @Test(arguments: [
        (RateLimitPolicy(perAddress: 0, perAccount: 0), nil),
        (RateLimitPolicy(perAccount: 0), 100),
        (RateLimitPolicy(perAddress: 0), 10),
        (RateLimitPolicy(), 10),
    ] as [(RateLimitPolicy, Int?)])
    func zeroTurnsALimitOff(_ policy: RateLimitPolicy, _ firstRefused: Int?) throws {
        let h = try Harness(configuration: AuthConfiguration(rateLimits: policy))
        var refused: Int? = nil
        for attempt in 0..<105 {
            let result = h.logIn("alice", "wrong")
            if Self.isRateLimited(result) { refused = attempt; break }
            #expect(onlyError(result)?.code == 101)
        }
        #expect(refused == firstRefused)
    }

    @Test(arguments: [1, 5])
    func lockoutAfterTheThreshold(_ minutes: Int) throws {
        let h = try Harness(configuration: Self.configuration(
            perAddress: 0, perAccount: 0, lockout: LockoutPolicy(threshold: 3, durationMinutes: minutes)))
        _ = try h.signedUp("alice", email: "alice@example.com")
        for _ in 0..<3 {
            let result = h.logIn("alice", "wrong")
            #expect(onlyError(result)?.code == 101)
            #expect(onlyError(result)?.message == "Invalid username/password.")
        }
        // Failures are recorded after the answer (equal work for every outcome).
        #expect(try eventually { try h.count("SELECT count(*) FROM users WHERE lockout_until IS NOT NULL") == 1 })
        let message = "Your account is locked due to multiple failed login attempts. Please try again after \(minutes) minute(s)"
        for (name, password) in [("alice", Harness.password), ("alice@example.com", Harness.password), ("alice", "wrong")] {
            let result = h.logIn(name, password)
            #expect(onlyError(result)?.code == 101, "\(result.json)")
            #expect(onlyError(result)?.message == message, "\(result.json)")
        }
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
        h.clock.advance(by: Double(minutes * 60) + 1)
        #expect(try h.loggedIn("alice").hasPrefix("r:"))
    }

    @Test func successResetsTheFailureCount() throws {
        let h = try Harness(configuration: Self.configuration(
            perAddress: 0, perAccount: 0, lockout: LockoutPolicy(threshold: 3, durationMinutes: 1)))
        _ = try h.signedUp("alice")
        for _ in 0..<3 {
            #expect(onlyError(h.logIn("alice", "wrong"))?.code == 101)
            #expect(onlyError(h.logIn("alice", "wrong"))?.code == 101)
            #expect(try eventually { try h.count("SELECT failed_login_count FROM users") == 2 })
            _ = try h.loggedIn("alice")
            #expect(try h.count("SELECT failed_login_count FROM users") == 0)
        }
    }

    @Test func noLockoutByDefault() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 0, perAccount: 0))
        _ = try h.signedUp("alice")
        for _ in 0..<8 { #expect(onlyError(h.logIn("alice", "wrong"))?.message == "Invalid username/password.") }
        _ = try h.loggedIn("alice")
    }

    /// Password hashing that would wait too long also answers 155, recorded as rate limited for 1 second.
    /// With no wait allowed and one worker, held by the gate until all 12 are decided, the first
    /// sign-up to reach the pool is admitted and the other 11 refused.
    @Test func fullHashingQueueIsTooManyRequests() throws {
        let gate = JobGate()
        let h = try Harness(
            configuration: Self.configuration(perAddress: 0, perAccount: 0), workers: 1, maxWait: 0, poolSize: 8,
            hashingMeter: { job in
                gate.pass()
                job()
                return 0.001
            })
        gate.shut()
        let results = Mutex<[(result: ExecutionResult, context: RequestContext)]?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let outcomes = simultaneously(12) { index in
                h.request(Queries.signUp, variables: ["input": ["fields": ["username": .string("u\(index)"), "password": "larch-ridge-11"]]])
            }
            results.withLock { $0 = outcomes }
            done.signal()
        }.start()
        // Each sign-up reaches the pool (distinct names, no rate limit): one is admitted and held
        // by the gate, queued or at the worker, and the others are refused.
        while true {
            let metrics = h.hashing.metrics
            if metrics.queued + metrics.busyWorkers + Int(metrics.rejected) == 12 { break }
            sched_yield()
        }
        gate.open()
        done.wait()  // `simultaneously` returns, with nil after 30 s
        let outcomes = try #require(results.withLock { $0 })
        #expect(outcomes.count == 12)
        let refused = outcomes.map(\.result).filter { !$0.errors.isEmpty }
        #expect(refused.count == 11)
        for result in refused { #expect(Self.isRateLimited(result), "\(result.json)") }
        #expect(outcomes.filter { $0.context.recordedRefusals == [.rateLimited(retryAfter: 1)] }.count == 11)
        #expect(try h.count("SELECT count(*) FROM users") == 1)
        #expect(h.hashing.metrics.rejected == 11)
    }
}
