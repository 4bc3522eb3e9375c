import Foundation
import GatehouseServer
import JSON
import Postgres
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

/// `gatehouse audit verify` on a log written over HTTP by two instances at once: exit 0, then
/// exit 1 naming the entry after one is edited in the database.
@Suite struct AuditVerifyTests {
    @Test func aLogWrittenByTwoInstancesUnderLoadVerifiesAndAnEditIsNamed() throws {
        let a = try LiveServer()
        let database = try #require(a.server.settings.databaseURL)
        let b = try LiveServer { $0.databaseURL = database }
        let ports = [a.server.port, b.server.port]
        let failures = Mutex<[String]>([])
        // Each thread signs up its user on one instance, then logs in on both, once wrongly.
        DispatchQueue.concurrentPerform(iterations: 6) { n in
            do {
                let password = "correct horse \(n)"
                let credentials = Documents.credentials("user\(n)", password)
                for (port, document, variables) in [
                    (ports[n % 2], Documents.signUp, credentials), (ports[(n + 1) % 2], Documents.logIn, credentials),
                    (ports[n % 2], Documents.logIn, Documents.credentials("user\(n)", "wrong password \(n)")),
                ] {
                    let json = try HTTPConnection(port: port).graphQL(document, variables: variables).json()
                    if document == Documents.signUp, json["errors"] != nil { failures.withLock { $0.append("\(json)") } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let environment = childEnvironment(["DATABASE_URL": database])
        let intact = try Child.run(["audit", "verify"], environment: environment)
        #expect(intact.status == 0, "\(intact.stderr)")
        // Per user: user.created, session.created; session.created; session.failed.
        #expect(intact.stdout.hasPrefix("audit log intact: 24 entries in ") && intact.stdout.hasSuffix(" seals\n"), "\(intact.stdout)")

        let connection = try Connection(database)
        defer { connection.close() }
        let victim = try #require(try connection.queryFirst(
            "SELECT id FROM audit_entries WHERE type = 'session.failed' ORDER BY pos LIMIT 1")?.decode(String.self, at: 0))
        _ = try connection.execute("UPDATE audit_entries SET ip = '198.51.100.7' WHERE id = \(victim)")
        let edited = try Child.run(["audit", "verify"], environment: environment)
        #expect(edited.status == 1)
        #expect(edited.stderr.contains("audit entry \(victim) (position "), "\(edited.stderr)")
    }
}
