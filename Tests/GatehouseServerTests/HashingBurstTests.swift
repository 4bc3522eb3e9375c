import Foundation
import GatehouseServer
import JSON
import ServerTestSupport
import Synchronization
import Testing
import TestSupport

/// The contract's "Bursts are served, floods refused": with the default settings on 2 hashing
/// workers and the production hash cost, 50 people sign up in the same instant.
///
/// Admission divides the maximum wait by the cost of a hash, which on a real machine depends on
/// what else runs. Here the pool's meter reports a fixed cost, and holds every hash until each of
/// the 50 sign-ups has been admitted or refused, so how many are refused depends on that cost
/// alone: 2 + ⌊5 s × 2 workers / cost⌋ are admitted.
@Suite struct HashingBurstTests {
    /// At 0.2 s a hash (slower than the production cost on an ordinary core) 52 are admitted and
    /// all 50 served; at 0.25 s 42 are admitted and the other 8 refused at once with 155.
    @Test(arguments: [(0.2, 0), (0.25, 8)])
    func fiftySimultaneousSignUps(hashCost cost: Double, refused: Int) throws {
        let gate = JobGate()
        let server = try InProcessServer(hashingMeter: { job in
            gate.pass()
            job()
            return cost
        }) { settings in
            let defaults = Settings()
            settings.hashCost = defaults.hashCost
            settings.poolSize = defaults.poolSize
            settings.hashWorkers = 2
        }
        defer { server.stop() }
        #expect(server.server.settings.hashMaxWait == 5)
        gate.shut()
        defer { gate.open() }  // before the server stops, which waits for the held hashes
        let clients = 50
        let port = server.server.port
        let outcomes = Mutex<[Int: String]>([:])
        let connected = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<clients {
            connected.enter()
            finished.enter()
            Thread {
                // Connected before the start, so that the requests arrive together; each person
                // from an address of their own, as 50 people are.
                let connection = Result { () throws(HTTPClientError) in
                    try HTTPConnection(port: port, sourceHost: "127.0.1.\(index + 1)", timeoutSeconds: 60)
                }
                connected.leave()
                start.wait()
                let outcome: String
                do {
                    let body = try connection.get().graphQL(
                        Documents.signUp, variables: Documents.credentials("burst\(index)", "correct horse \(index)")).json()
                    outcome = body.at("data", "signUp", "viewer", "sessionToken")?.stringValue != nil
                        ? "ok" : "\(body.at("errors") ?? .null)"
                } catch {
                    outcome = "\(error)"
                }
                outcomes.withLock { $0[index] = outcome }
                finished.leave()
            }.start()
        }
        connected.wait()
        for _ in 0..<clients { start.signal() }

        // With the gate shut no hash finishes: each sign-up either holds a place in the pool
        // (queued, or at a worker held by the gate) or has its answer (refused, or failed before
        // hashing). Neither count goes down, so once they add up to 50 every sign-up is decided.
        // One /metrics answer is one snapshot of the pool.
        func hashingMetrics() throws -> (held: Int, rejected: Int, mean: Double) {
            let lines = try HTTPConnection.get("/metrics", port: port).text.split(separator: "\n")
            func sample(_ name: String) throws -> Double {
                let line = lines.first { $0.hasPrefix(name + " ") }
                return try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") }, "\(name) in /metrics")
            }
            return (
                Int(try sample("gatehouse_hashing_queue_depth") + sample("gatehouse_hashing_busy_workers")),
                Int(try sample("gatehouse_hashing_rejected_total")), try sample("gatehouse_hashing_mean_job_seconds"))
        }
        var held = try hashingMetrics().held
        while held + outcomes.withLock({ $0.count }) < clients { held = try hashingMetrics().held }
        let answeredWhileHeld = outcomes.withLock { $0 }
        let pool = try hashingMetrics()
        #expect(pool.held == clients - refused)
        #expect(pool.rejected == refused)
        #expect(pool.mean == cost)
        #expect(answeredWhileHeld.count == refused, "\(answeredWhileHeld)")
        #expect(answeredWhileHeld.values.allSatisfy { $0.contains("\"code\":155") }, "\(answeredWhileHeld)")

        gate.open()
        #expect(finished.wait(timeout: .now() + 120) == .success)
        let all = outcomes.withLock { $0 }
        #expect(all.count == clients)
        #expect(all.values.filter { $0 == "ok" }.count == clients - refused, "\(all.filter { $0.value != "ok" })")
    }
}
