import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Testing

/// What the frequent log-ins cost in round trips to the database with the server's defaults (the
/// audit log and security notices on), counted by the pool (``Pool/roundTripCount``) around one
/// log-in whose statements an earlier one prepared on the harness's only connection. Each
/// statement, `BEGIN` and `COMMIT` is one round trip; on a busy server the batched ones are shared
/// by every log-in of their batch. The operations select the session token only, as the
/// benchmarks do, so no other field's resolver reads the database.
@Suite struct RoundTripTests {
    static func harness(auditing: Bool = true) throws -> Harness {
        try Harness(poolSize: 1, events: EventLog(auditing: auditing))
    }

    /// The round trips `body` makes.
    static func roundTrips(_ h: Harness, _ body: () throws -> Void) rethrows -> Int {
        let before = h.pool.roundTripCount
        try body()
        return h.pool.roundTripCount - before
    }

    static func logInWith(_ h: Harness, _ id: String) -> ExecutionResult {
        h.graphql(
            "mutation W($a: Object!) { logInWith(input: {authData: $a}) { viewer { sessionToken } } }",
            variables: ["a": ["anonymous": ["id": .string(id)]]])
    }

    static func logIn(_ h: Harness, _ name: String) -> ExecutionResult {
        h.graphql(
            "mutation L($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) { viewer { sessionToken } } }",
            variables: ["u": .string(name), "p": .string(Harness.password)])
    }

    /// A returning guest: the batch's transaction (`BEGIN`; the statement that finds the user and
    /// inserts the session; `COMMIT` with the audit entry), with no lock of the user (it has no
    /// installation id to replace a session of), then the device's sighting, a statement of its own.
    @Test func aReturningGuestsLogInWithTakesFourRoundTrips() throws {
        let h = try Self.harness()
        let id = "8c0c3f55-0000-4000-8000-000000000001"
        // The first makes the guest; the second prepares the log-in's statements.
        for _ in 0..<2 { #expect(Self.logInWith(h, id).errors.isEmpty) }
        let count = try Self.roundTrips(h) { #expect(Self.logInWith(h, id).errors.isEmpty) }
        #expect(count == 4)
        #expect(try h.count("SELECT count(*)::int8 FROM audit_entries WHERE type = 'session.created'") == 3)
    }

    /// A log-in by password: the attempt's count (`BEGIN`, its asynchronous commit's setting, the
    /// attempt, `COMMIT`), the session's transaction (`BEGIN`, the lockout's reset, the session,
    /// `COMMIT`) and the device's sighting: nine, with the audit log or without (its entry goes
    /// with the `COMMIT`).
    @Test(arguments: [true, false]) func aLogInByPasswordTakesNineRoundTripsWithOrWithoutTheAuditLog(auditing: Bool) throws {
        let h = try Self.harness(auditing: auditing)
        _ = try h.signedUp("ann")
        #expect(Self.logIn(h, "ann").errors.isEmpty)
        let count = try Self.roundTrips(h) { #expect(Self.logIn(h, "ann").errors.isEmpty) }
        #expect(count == 9)
    }
}
