import Auth
import Foundation
import GraphQL
import JSON
import Testing

/// Passwords, tokens and hashes never reach logs or error messages; a token appears only as
/// a `sessionToken` in responses.
@Suite struct SecretsTests {
    /// `json` without any `sessionToken` entry.
    static func withoutSessionTokens(_ json: JSON) -> JSON {
        switch json {
        case .object(let object):
            var copy = JSONObject()
            for (key, value) in object where key != "sessionToken" { copy[key] = withoutSessionTokens(value) }
            return .object(copy)
        case .array(let array): return .array(array.map(withoutSessionTokens))
        default: return json
        }
    }

    @Test func scriptedSessionLeaksNothing() throws {
        let password = "Tr0ub4dor&3-unique-secret"
        let h = try Harness(configuration: AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: 100, perAccount: 100),
            lockout: LockoutPolicy(threshold: 5, durationMinutes: 1), masterKey: Harness.masterKey))
        var results: [ExecutionResult] = []
        func run(_ result: ExecutionResult) -> ExecutionResult { results.append(result); return result }

        let signUp = run(h.signUp(["username": "alice", "password": .string(password), "email": "alice@example.com"],
                                  installationId: "inst-1"))
        let signUpToken = try #require(signUp.data?["signUp"]?["viewer"]?["sessionToken"]?.stringValue, "\(signUp.json)")
        #expect(onlyError(run(h.logIn("alice", password + "x")))?.code == 101)
        #expect(onlyError(run(h.logIn("nobody", password)))?.code == 101)
        #expect(onlyError(run(h.signUp(["username": "ALICE", "password": .string(password)])))?.code == 202)
        let logIn = run(h.logIn("alice@example.com", password, installationId: "inst-2"))
        let logInToken = try #require(logIn.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue, "\(logIn.json)")
        #expect(run(h.viewer(token: logInToken)).errors.isEmpty)
        #expect(run(h.logOut(token: logInToken)).errors.isEmpty)
        #expect(onlyError(run(h.viewer(token: logInToken)))?.code == 209)
        // Internal failures log their detail: make the next session insert and a sign-up fail.
        try h.execute("ALTER TABLE sessions ADD CONSTRAINT sabotage CHECK (false) NOT VALID")
        #expect(onlyError(run(h.logIn("alice", password)))?.code == 1)
        #expect(onlyError(run(h.signUp(["username": "bob", "password": .string(password)])))?.code == 1)

        let hash = try #require(try h.rows("SELECT password_hash FROM users").first?.decode(String.self, at: 0))
        let hashDigest = try #require(hash.split(separator: "$").last.map(String.init))
        let secrets = [password, signUpToken, logInToken, String(signUpToken.dropFirst(2)), String(logInToken.dropFirst(2)),
                       hash, hashDigest]
        let logs = h.capturedLogs
        #expect(logs.count >= 2, "the sabotaged calls should have logged: \(logs)")
        #expect(logs.contains { $0.contains("sabotage") }, "\(logs)")
        let messages = results.flatMap(\.errors).map(\.message)
        let responses = results.map { Self.withoutSessionTokens($0.json).serializedString() }
        for secret in secrets {
            #expect(!logs.contains { $0.contains(secret) }, "log: \(logs)")
            #expect(!messages.contains { $0.contains(secret) })
            #expect(!responses.contains { $0.contains(secret) })
        }
        // The tokens are where they belong.
        #expect(results[0].json.serializedString().contains(signUpToken))
        #expect(logIn.json.serializedString().contains(logInToken))
    }
}
