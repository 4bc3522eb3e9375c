@testable import Auth
import Dispatch
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Synchronization
import Testing
import TestSupport

/// Every check of an account's password or second factor counts against that account (the
/// per-account limit and lockout) before it is made, whatever the path: logIn, parallel
/// guesses, a TOTP or recovery code at logIn or logInWith, a recovery-code regeneration, and
/// `currentPassword`. The owner's known installation lets the right password past the limits,
/// never a code.
@Suite struct AccountLimitTests {
    static let lockout = LockoutPolicy(threshold: 3, durationMinutes: 5)

    static func configuration(perAddress: Int = 0, perAccount: Int = 0, lockout: LockoutPolicy? = nil) -> AuthConfiguration {
        AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: perAddress, perAccount: perAccount), lockout: lockout, masterKey: Harness.masterKey)
    }

    static let locked = "101 Your account is locked due to multiple failed login attempts. Please try again after 5 minute(s)"
    static let tooMany = "155 Too many requests."
    static let wrongPassword = "101 Invalid username/password."
    static let wrongCode = "141 Invalid MFA token"
    static let wrongRecoveryCode = "141 Invalid recovery code."
    /// Wrong codes of both kinds, each with its answer: a recovery code's form and a TOTP code's.
    static let wrongCodes = [("abcde-12345", wrongRecoveryCode), ("12345", wrongCode), ("zzzzz-zzzzz", wrongRecoveryCode)]

    static func error(_ result: ExecutionResult) -> String? { TOTPLogInTests.error(result) }

    /// Moves the clock to one second into a per-account window (15 minutes, aligned), so that a
    /// test's attempts fall in one window.
    static func startWindow(_ h: Harness) {
        let window = Double(h.auth.core.configuration.rateLimits.accountWindow)
        let into = h.clock.now().timeIntervalSince1970.truncatingRemainder(dividingBy: window)
        h.clock.advance(by: window - into + 1)
    }

    /// alice, signed up (from `installationId`) and enrolled in TOTP; the clock is past the
    /// enrolment's step.
    static func enrolled(_ h: Harness, installationId: String? = nil) throws -> TOTPLogInTests.Account {
        let viewer = try h.signedUp("alice", installationId: installationId)
        let alice = TOTPLogInTests.Account(
            id: try #require(viewer["user"]?["objectId"]?.stringValue), token: try #require(viewer["sessionToken"]?.stringValue),
            secret: SecureRandom.bytes(20))
        _ = try TOTPLogInTests.enrol(h, alice)
        h.clock.advance(by: 30)
        return alice
    }

    static func logIn(_ h: Harness, _ password: String = Harness.password, code: String?, installationId: String? = nil) -> String? {
        error(h.logIn("alice", password, authData: code.map { ["mfa": ["token": .string($0)]] }, installationId: installationId))
    }

    // MARK: Lockout counted before the answer

    /// Parallel wrong passwords all pass the lookup before any is answered (a barrier holds every
    /// check until all have started): each is counted before it is checked, so only the
    /// threshold's worth get "wrong password", the rest the lockout, and so does the right
    /// password right after.
    @Test func parallelGuessesAreCountedBeforeAnyIsChecked() throws {
        let guesses = 6
        let barrier = Barrier(parties: guesses)
        let h = try Harness(
            configuration: Self.configuration(lockout: Self.lockout), workers: guesses, poolSize: 8,
            onVerify: { _ in barrier.arrive() })
        _ = try h.signedUp("alice")
        let answers = try #require(simultaneously(guesses) { index in Self.error(h.logIn("alice", "wrong guess \(index)")) })
        #expect(answers.count { $0 == Self.wrongPassword } == Self.lockout.threshold, "\(answers)")
        #expect(answers.count { $0 == Self.locked } == guesses - Self.lockout.threshold, "\(answers)")
        #expect(Self.error(h.logIn("alice", Harness.password)) == Self.locked)
    }

    /// The count is in the database while the password is being checked, and nothing about a
    /// wrong password is written after the check: its answer comes while another transaction
    /// holds the user's row (equal work for every outcome).
    @Test func aWrongPasswordIsCountedBeforeItIsChecked() throws {
        let duringCheck = Mutex<(count: Int?, holder: Connection?)>((nil, nil))
        let hook = Mutex<(@Sendable () throws -> (Int, Connection))?>(nil)
        let h = try Harness(
            configuration: Self.configuration(lockout: Self.lockout),
            onVerify: { _ in
                guard let action = hook.withLock({ $0 }), let (count, holder) = try? action() else { return }
                duringCheck.withLock { $0 = (count, holder) }
            })
        _ = try h.signedUp("alice")
        let database = h.database
        hook.withLock {
            $0 = {
                let connection = try database.connect()
                try connection.execute("BEGIN")
                guard let row = try connection.queryFirst("SELECT failed_login_count FROM users WHERE username = 'alice' FOR NO KEY UPDATE")
                else { throw HarnessError("alice is missing") }
                return (try row.decode(Int.self, at: 0), connection)
            }
        }
        #expect(Self.error(h.logIn("alice", "wrong")) == Self.wrongPassword)
        hook.withLock { $0 = nil }
        let (count, holder) = duringCheck.withLock { $0 }
        #expect(count == 1)
        try holder?.execute("COMMIT")
        #expect(try h.count("SELECT failed_login_count FROM users") == 1)
    }

    /// With lockout off, a log-in neither locks nor writes the user's row (the per-account count
    /// is its only write): it goes through while another transaction holds that row as an update
    /// does (the new session's foreign key check only shares it).
    @Test func withoutLockoutALogInLeavesTheUsersRowAlone() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 10))
        _ = try h.signedUp("alice")
        let connection = try h.database.connect()
        let answers = try connection.transaction { tx in
            _ = try tx.queryFirst("SELECT 1 FROM users WHERE username = 'alice' FOR NO KEY UPDATE")
            return [Self.error(h.logIn("alice", "wrong")), Self.error(h.logIn("alice", Harness.password))]
        }
        #expect(answers == [Self.wrongPassword, nil])
    }

    /// The threshold-th wrong password locks at once, and the lock ends after its duration.
    @Test func theLockEndsAfterItsDuration() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        _ = try h.signedUp("alice")
        for _ in 0..<3 { #expect(Self.error(h.logIn("alice", "wrong")) == Self.wrongPassword) }
        #expect(try h.count("SELECT count(*) FROM users WHERE lockout_until IS NOT NULL AND failed_login_count = 0") == 1)
        #expect(Self.error(h.logIn("alice", Harness.password)) == Self.locked)
        h.clock.advance(by: 301)
        #expect(try h.loggedIn("alice").hasPrefix("r:"))
        #expect(try h.count("SELECT count(*) FROM users WHERE lockout_until IS NULL AND failed_login_count = 0") == 1)
    }

    /// The right password without its code (-1) is no failure: it gives its count back.
    @Test func theRightPasswordWithoutItsCodeIsNoFailure() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        let alice = try Self.enrolled(h)
        for _ in 0..<5 { #expect(Self.logIn(h, code: nil) == "-1 Missing additional authData mfa") }
        #expect(try h.count("SELECT failed_login_count FROM users") == 0)
        for (code, answer) in Self.wrongCodes.prefix(2) { #expect(Self.logIn(h, code: code) == answer) }
        // The third attempt would lock unless it succeeds; without its code it gives that back too.
        #expect(Self.logIn(h, code: nil) == "-1 Missing additional authData mfa")
        #expect(try h.count("SELECT count(*) FROM users WHERE lockout_until IS NULL AND failed_login_count = 2") == 1)
        #expect(Self.logIn(h, code: alice.code(h)) == nil)
    }

    // MARK: Codes at logIn from a known installation

    /// Past the per-account limit, the right password from the owner's known installation still
    /// gets no code checked: codes are never exempt.
    @Test func aKnownInstallationGetsNoCodeGuessesPastTheLimit() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        Self.startWindow(h)
        let alice = try Self.enrolled(h, installationId: "owner-phone")
        for _ in 0..<3 { #expect(Self.logIn(h, "wrong", code: nil) == Self.wrongPassword) }
        for code in ["abcde-12345", "12345", alice.code(h)] {
            #expect(Self.logIn(h, code: code, installationId: "owner-phone") == Self.tooMany, "\(code)")
        }
        // A user without TOTP is still let in from the known installation (the exemption).
        let bob = try h.signedUp("bob", installationId: "bobs-phone")
        #expect(bob["sessionToken"] != nil)
        for _ in 0..<3 { #expect(Self.error(h.logIn("bob", "wrong")) == Self.wrongPassword) }
        #expect(try h.loggedIn("bob", installationId: "bobs-phone").hasPrefix("r:"))
    }

    @Test func aKnownInstallationGetsNoCodeGuessesPastALockout() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        let alice = try Self.enrolled(h, installationId: "owner-phone")
        for _ in 0..<3 { #expect(Self.logIn(h, "wrong", code: nil) == Self.wrongPassword) }
        for code in ["abcde-12345", alice.code(h)] {
            #expect(Self.logIn(h, code: code, installationId: "owner-phone") == Self.locked, "\(code)")
        }
        h.clock.advance(by: 301)
        #expect(Self.logIn(h, code: alice.code(h), installationId: "owner-phone") == nil)
    }

    // MARK: Codes at logInWith

    static func logInWith(_ h: Harness, code: String, address: String = "192.0.2.1") -> String? {
        error(ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"], "mfa": ["token": .string(code)]], address: address))
    }

    /// A guest (anonymous provider) with TOTP.
    static func enrolledGuest(_ h: Harness) throws -> TOTPLogInTests.Account {
        let guest = try ProviderLogInTests.guest(h, "device-1")
        let account = TOTPLogInTests.Account(id: guest.id, token: guest.token, secret: SecureRandom.bytes(20))
        _ = try TOTPLogInTests.enrol(h, account)
        h.clock.advance(by: 30)
        return account
    }

    @Test func providerLogInCodesCountAgainstTheAccountLimit() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        Self.startWindow(h)
        let guest = try Self.enrolledGuest(h)
        for (code, answer) in Self.wrongCodes { #expect(Self.logInWith(h, code: code, address: "198.51.100.1") == answer) }
        #expect(Self.logInWith(h, code: guest.code(h), address: "198.51.100.1") == Self.tooMany)
        // Counted per network, as log-ins are.
        #expect(Self.logInWith(h, code: guest.code(h), address: "198.51.100.2") == nil)
    }

    @Test func providerLogInCodesCountForLockout() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        let guest = try Self.enrolledGuest(h)
        for (code, answer) in Self.wrongCodes { #expect(Self.logInWith(h, code: code) == answer) }
        #expect(Self.logInWith(h, code: guest.code(h)) == Self.locked)
        h.clock.advance(by: 301)
        #expect(Self.logInWith(h, code: guest.code(h)) == nil)
    }

    // MARK: Recovery-code regeneration

    static func regenerate(_ h: Harness, _ alice: TOTPLogInTests.Account, code: String, currentPassword: String? = nil) -> String? {
        error(TOTPLogInTests.update(
            h, alice.id, ["token": .string(code), "recovery": true], token: alice.token, currentPassword: currentPassword))
    }

    @Test func regenerationCodesCountAgainstTheAccountLimit() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        Self.startWindow(h)
        let alice = try Self.enrolled(h)
        for (code, answer) in Self.wrongCodes { #expect(Self.regenerate(h, alice, code: code) == answer) }
        #expect(Self.regenerate(h, alice, code: alice.code(h)) == Self.tooMany)
        // The same count as log-ins.
        #expect(Self.logIn(h, code: alice.code(h)) == Self.tooMany)
    }

    @Test func regenerationCodesCountForLockout() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        let alice = try Self.enrolled(h)
        for (code, answer) in Self.wrongCodes { #expect(Self.regenerate(h, alice, code: code) == answer) }
        #expect(Self.regenerate(h, alice, code: alice.code(h)) == Self.locked)
        #expect(Self.logIn(h, code: alice.code(h)) == Self.locked)
        // A right code (and a right currentPassword) gives its count back; it does not clear the others.
        h.clock.advance(by: 301)
        #expect(Self.regenerate(h, alice, code: "abcde-12345", currentPassword: Harness.password) == Self.wrongRecoveryCode)
        h.clock.advance(by: 30)
        #expect(Self.regenerate(h, alice, code: alice.code(h), currentPassword: Harness.password) == nil)
        #expect(try h.count("SELECT failed_login_count FROM users") == 1)
    }

    // MARK: currentPassword

    @Test func aWrongCurrentPasswordCountsAgainstTheAccountLimit() throws {
        let h = try Harness(configuration: Self.configuration(perAccount: 3))
        Self.startWindow(h)
        let alice = try AccountChangeTests.account(h, "alice")
        for _ in 0..<3 {
            #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: "wrong", token: alice.token)) == Self.wrongPassword)
        }
        // Refused before any password work, the right one too; and log-ins share the count.
        #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: Harness.password, token: alice.token)) == Self.tooMany)
        #expect(Self.error(h.logIn("alice", Harness.password)) == Self.tooMany)
        #expect(Self.error(AccountChangeTests.update(h, alice.id, ["email": "a@example.com"], currentPassword: Harness.password, token: alice.token))
            == Self.tooMany)
        // The other way round: wrong log-ins from another network, then currentPassword from there.
        for _ in 0..<3 { #expect(Self.error(h.logIn("alice", "wrong", address: "198.51.100.7")) == Self.wrongPassword) }
        let fromThere = h.graphql(
            AccountChangeTests.delete, variables: ["input": ["id": .string(alice.id), "currentPassword": .string(Harness.password)]],
            token: alice.token, address: "198.51.100.7")
        #expect(Self.error(fromThere) == Self.tooMany)
    }

    @Test func currentPasswordIsRefusedWhileTheAccountIsLocked() throws {
        let h = try Harness(configuration: Self.configuration(lockout: Self.lockout))
        let alice = try AccountChangeTests.account(h, "alice")
        for _ in 0..<3 { #expect(Self.error(h.logIn("alice", "wrong")) == Self.wrongPassword) }
        #expect(Self.error(AccountChangeTests.update(h, alice.id, ["email": "a@example.com"], currentPassword: Harness.password, token: alice.token))
            == Self.locked)
        h.clock.advance(by: 301)
        // Wrong ones lock as wrong log-ins do; a right one gives its count back.
        for _ in 0..<2 {
            #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: "wrong", token: alice.token)) == Self.wrongPassword)
        }
        #expect(AccountChangeTests.update(h, alice.id, ["email": "a@example.com"], currentPassword: Harness.password, token: alice.token)
            .errors.isEmpty)
        #expect(try h.count("SELECT failed_login_count FROM users") == 2)
        #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: "wrong", token: alice.token)) == Self.wrongPassword)
        #expect(Self.error(h.logIn("alice", Harness.password)) == Self.locked)
    }

    /// Checking a currentPassword costs a password hash: it counts against the client address
    /// too, like a log-in, so no one with a session (a guest's is free) can keep the hashing
    /// workers busy.
    @Test func currentPasswordCountsAgainstTheClientAddress() throws {
        let h = try Harness(configuration: Self.configuration(perAddress: 3))
        let alice = try AccountChangeTests.account(h, "alice")
        for _ in 0..<2 {
            #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: "wrong", token: alice.token)) == Self.wrongPassword)
        }
        #expect(Self.error(AccountChangeTests.delete(h, alice.id, currentPassword: "wrong", token: alice.token)) == Self.tooMany)
    }
}

/// Holds each arriving thread until `parties` have arrived, then lets them all go; later
/// arrivals pass. A thread waits at most 30 seconds, so that a bug fails the test instead of
/// hanging it.
final class Barrier: Sendable {
    let parties: Int
    private let arrived = Mutex(0)
    private let gate = DispatchSemaphore(value: 0)

    init(parties: Int) { self.parties = parties }

    func arrive() {
        let count = arrived.withLock { count in
            count += 1
            return count
        }
        if count == parties {
            for _ in 0..<(parties - 1) { gate.signal() }
        } else if count < parties {
            _ = gate.wait(timeout: .now() + 30)
        }
    }
}
