import Auth
import Foundation
import GraphQL
import JSON
import Synchronization
import Testing

/// Simultaneous sign-ups race on the unique index; the losers get 202 and leave nothing behind.
@Suite struct ConcurrencyTests {
    @Test(arguments: ["same username", "same email"])
    func fiftySimultaneousSignUps(_ clash: String) throws {
        let threads = 50
        // At the minimum cost the hashing pool admits all 50 at once; a rate limit of 100 per address never bites.
        let h = try Harness(poolSize: 8)
        let results = simultaneously(threads) { index in
            let fields: JSON = clash == "same username"
                ? ["username": "Racer", "password": "larch-ridge-11"]
                : ["username": .string("racer\(index)"), "password": "larch-ridge-11", "email": "racer@example.com"]
            return h.signUp(fields)
        }
        let all = try #require(results)
        #expect(all.count == threads)
        let winners = all.filter { $0.errors.isEmpty }
        let losers = all.filter { !$0.errors.isEmpty }
        #expect(winners.count == 1)
        let expectedCode = clash == "same username" ? 202 : 203
        for loser in losers {
            #expect(onlyError(loser)?.code == expectedCode, "\(loser.json)")
        }
        #expect(losers.count == threads - 1)
        #expect(try h.count("SELECT count(*) FROM users") == 1)
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
        let token = try #require(winners.first?.data?["signUp"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(h.viewer(token: token).errors.isEmpty)
        #expect(h.capturedLogs.isEmpty, "\(h.capturedLogs)")
    }

    /// Half sign up with the username `Shadow@Example.com`, half with the email
    /// `shadow@example.com`, all at once: one wins, so that name logs one account in; the others
    /// get 202 (username) or 203 (email).
    @Test func simultaneousSignUpsCannotShadowEachOther() throws {
        let threads = 20
        let h = try Harness(poolSize: 8)
        let all = try #require(simultaneously(threads) { index in
            let fields: JSON = index % 2 == 0
                ? ["username": "Shadow@Example.com", "password": "larch-ridge-11"]
                : ["username": .string("shadow\(index)"), "password": "larch-ridge-11", "email": "shadow@example.com"]
            return h.signUp(fields)
        })
        #expect(all.filter { $0.errors.isEmpty }.count == 1)
        for (index, result) in all.enumerated() where !result.errors.isEmpty {
            #expect(onlyError(result)?.code == (index % 2 == 0 ? 202 : 203), "\(result.json)")
        }
        #expect(try h.count("SELECT count(*) FROM users") == 1)
    }

    /// Simultaneous log-ins from one installation leave exactly one session for it: each
    /// new session replaces the others of that user and installation.
    @Test func simultaneousLogInsFromOneInstallation() throws {
        let threads = 10
        let h = try Harness(poolSize: 8)
        _ = try h.signedUp("alice")
        let results = try #require(simultaneously(threads) { _ in
            h.logIn("alice", Harness.password, installationId: "device-1")
        })
        #expect(results.count == threads)
        #expect(results.allSatisfy { $0.errors.isEmpty })
        #expect(try h.count("SELECT count(*) FROM sessions WHERE installation_id = 'device-1'") == 1)
        let working = results.compactMap { $0.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue }
            .filter { h.viewer(token: $0).errors.isEmpty }
        #expect(working.count == 1)
    }
}
