import Foundation
import Postgres

/// Start-up's patience with a database in the middle of a failover: while the database is
/// unreachable or answers read-only (the proxy still points at the old primary, now a standby),
/// connecting and migrating are tried again with a short back-off, one log line per attempt, up
/// to `GATEHOUSE_DATABASE_WAIT` seconds; then the last error stops the start.
struct DatabaseWait {
    /// Seconds to keep trying; 0 tries once.
    let seconds: Double
    let logger: Logger
    /// First pause between attempts, doubled each time up to ``longestPause``.
    var firstPause = 0.25
    var longestPause = 2.0
    /// The time the bound is measured on, and the pause between attempts: the machine's, or a
    /// test's clock, so that how many attempts fit does not depend on the machine's speed.
    var now: () -> ContinuousClock.Instant = { ContinuousClock.now }
    var sleep: (_ seconds: Double) -> Void = { Thread.sleep(forTimeInterval: $0) }

    /// `body`'s result, trying again while it fails with an error that passes by itself
    /// (``PostgresError/isUnavailable``) and the bound allows one more attempt. Other errors,
    /// and the last one, are thrown.
    func run<T>(_ what: String, _ body: () throws -> T) throws -> T {
        let deadline = now() + .milliseconds(Int(seconds * 1000))
        var pause = firstPause
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as PostgresError where error.isUnavailable && now() + .milliseconds(Int(pause * 1000)) < deadline {
                // The description is redacted (never the connection string, so never its password).
                logger.warn("database not ready for \(what), trying again", [
                    "attempt": .int(attempt), "retryInSeconds": .double(pause), "error": .string(String(describing: error)),
                ])
                sleep(pause)
                pause = min(pause * 2, longestPause)
                attempt += 1
            }
        }
    }
}
