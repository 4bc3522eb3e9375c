import Foundation
import Threading
import Postgres
import Synchronization

/// Viewer lookups that miss the session cache, run on a streaming standby
/// (`GATEHOUSE_READ_DATABASE_URL`) when it is as current as the primary, else on the primary.
///
/// No staleness beyond the primary's own: each batch first reads the primary's WAL position
/// (``UserStore/walPosition()``, one trivial statement), taken after every lookup in the batch
/// was asked and so past the commit of every log-in, sign-up and log-out acknowledged before
/// any of them. The standby is asked only once it has replayed that far, so what it finds and
/// what it does not find are what the primary would have answered: a token made a moment ago is
/// found, a logged-out one is not (209), even while the standby lags. A standby that has not
/// replayed that far within ``catchUpWait`` (replay paused, an overloaded standby, a write still
/// unflushed on the primary) leaves the batch to the primary, and later batches do not wait for
/// it until it has caught up again. A standby that cannot be reached, errs, or is no longer in
/// recovery (promoted: positions of two primaries cannot be compared) leaves every batch to the
/// primary for ``retryInterval`` seconds. Each fallback is counted (``counts``); a change between
/// serving, behind and unavailable is reported (``Event``) unless one of its kind was in the last
/// ``reportInterval`` seconds (a standby that keeps just missing the wait must not flood the log).
public final class StandbyReads: Sendable {
    /// A change of the standby's state, for the log.
    public enum Event: Sendable {
        /// Unreachable, failing or not a standby: lookups go to the primary for a while.
        case unavailable(String)
        /// Not caught up within ``catchUpWait``: lookups go to the primary until it is.
        case behind
        /// Caught up (again): it answers lookups.
        case serving
    }

    private enum Mode {
        case serving, behind, unavailable(until: Double)

        /// Which kind of mode, as an index into `State.reported`.
        var kind: Int {
            switch self {
            case .serving: 0
            case .behind: 1
            case .unavailable: 2
            }
        }
    }

    private struct State {
        var mode = Mode.serving
        /// When a change into each kind of mode was last reported.
        var reported = [-Double.infinity, -Double.infinity, -Double.infinity]
    }

    private struct NotAStandby: Error, CustomStringConvertible {
        var description: String { "the read database is not in recovery (not a standby of the primary)" }
    }

    let primary: UserStore
    let standby: Pool
    /// How long a batch waits for a standby that is behind the primary's position (once caught
    /// up; while behind, batches only look).
    let catchUpWait: Double
    /// Seconds an unavailable standby is left alone before a batch tries it again.
    let retryInterval: Double
    /// Seconds after reporting a change before a change of the same kind is reported again.
    let reportInterval: Double = 60
    private let state = Lock(State())
    private let answered = Atomic<Int>(0)
    private let behind = Atomic<Int>(0)
    private let unavailable = Atomic<Int>(0)
    private let report: @Sendable (Event) -> Void
    private let clock: @Sendable () -> Double

    init(
        primary: UserStore, standby: Pool, catchUpWait: Double = 0.02, retryInterval: Double = 5,
        report: @escaping @Sendable (Event) -> Void = { _ in },
        clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.primary = primary
        self.standby = standby
        self.catchUpWait = catchUpWait
        self.retryInterval = retryInterval
        self.report = report
        self.clock = clock
    }

    /// Batches the standby answered, and batches left to the primary because it was behind or
    /// unavailable.
    public var counts: (standby: Int, behind: Int, unavailable: Int) {
        (answered.load(ordering: .relaxed), behind.load(ordering: .relaxed), unavailable.load(ordering: .relaxed))
    }

    /// ``UserStore/sessions(digests:)``, answered by the standby when it is current. Errors are
    /// the primary's only: a failing standby is never the caller's problem.
    func sessions(digests: [[UInt8]]) throws -> [[UInt8]: UserStore.StoredSession] {
        let now = clock()
        let wait: Double? = state.withLock { state in
            switch state.mode {
            case .serving: return catchUpWait
            case .behind: return 0
            case .unavailable(let until): return now >= until ? catchUpWait : nil
            }
        }
        guard let wait else {
            unavailable.add(1, ordering: .relaxed)
            return try primary.sessions(digests: digests)
        }
        // nil: the primary is in recovery itself (mid-failover), and answers as without a standby.
        guard let position = try primary.walPosition() else { return try primary.sessions(digests: digests) }
        let found: [[UInt8]: UserStore.StoredSession]?
        do {
            found = try standby.withConnection(retry: .once) { connection in
                guard try Self.hasReplayed(position, on: connection, waiting: wait) else { return nil }
                return try UserStore.sessions(digests: digests, on: connection)
            }
        } catch {
            enter(.unavailable(until: clock() + retryInterval), .unavailable(String(describing: error)))
            unavailable.add(1, ordering: .relaxed)
            return try primary.sessions(digests: digests)
        }
        guard let found else {
            enter(.behind, .behind)
            behind.add(1, ordering: .relaxed)
            return try primary.sessions(digests: digests)
        }
        enter(.serving, .serving)
        answered.add(1, ordering: .relaxed)
        return found
    }

    /// Sets the mode, reporting `event` when the kind of mode changed (see ``reportInterval``).
    private func enter(_ new: Mode, _ event: Event) {
        let now = clock()
        let changed = state.withLock { state in
            let changed = state.mode.kind != new.kind && now - state.reported[new.kind] >= reportInterval
            if changed { state.reported[new.kind] = now }
            state.mode = new
            return changed
        }
        if changed { report(event) }
    }

    /// Whether the standby of `connection` has replayed the primary's WAL up to `position`
    /// (bytes, see ``UserStore/walPosition()``), looking again every half millisecond for up to
    /// `seconds`. Asked in a statement of its own before the lookup, whose snapshot then holds
    /// everything replayed so far.
    static func hasReplayed(_ position: String, on connection: Connection, waiting seconds: Double) throws -> Bool {
        let deadline = ProcessInfo.processInfo.systemUptime + seconds
        while true {
            let row = try connection.queryFirst("""
                SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0'::pg_lsn >= \(position)::numeric
                """)
            guard try row?.decode(Bool.self, at: 0) == true else { throw NotAStandby() }
            if try row?.decode(Bool?.self, at: 1) == true { return true }
            if ProcessInfo.processInfo.systemUptime >= deadline { return false }
            usleep(500)
        }
    }
}

extension UserStore {
    /// The primary's WAL insert position in bytes (a decimal number): every commit acknowledged so
    /// far, with any `synchronous_commit`, ends at or before it (the write or flush position would
    /// miss commits made with `synchronous_commit = off`). A position just past a page header
    /// (nothing written on the page yet) is moved back to the page's start, where the last record
    /// ended, so that an idle standby can be level with it. Nil when the server is in recovery itself.
    func walPosition() throws -> String? {
        try pool.withConnection(retry: .once) { connection in
            let row = try connection.queryFirst("""
                SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE (
                    SELECT (CASE WHEN o % s = 40 THEN o - 40 WHEN o % b = 24 THEN o - 24 ELSE o END)::text
                    FROM (SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn AS o,
                                 current_setting('wal_block_size')::numeric AS b,
                                 pg_size_bytes(current_setting('wal_segment_size')) AS s) AS position) END
                """)
            return try row?.decode(String?.self, at: 0)
        }
    }
}
