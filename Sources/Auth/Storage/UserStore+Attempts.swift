import Foundation
import Postgres

/// Attempts to prove an account's credentials (a password at `logIn` or as `currentPassword`, a
/// TOTP or recovery code), each counted before it is checked: against the per-account limit
/// (`login_attempts`, per client network in fixed windows, with a ceiling over all networks) and,
/// when lockout is on, against lockout (`users.failed_login_count` and `lockout_until`).
///
/// Lockout counts reservations. An attempt that will be checked takes one in the statement that
/// counts it, with the user's row locked, so that of any number of parallel attempts no more than
/// the threshold are checked. The attempt taking the threshold-th starts the lock at once (the
/// count starts again at 0) and is still checked: if it turns out right, the lock goes with it.
/// A reservation stays when the credential was wrong (nothing is written after the check, so a
/// wrong password costs what an unknown name does); a successful log-in clears the count and the
/// lock (``completeLogIn(userId:rehash:keepLockout:session:now:)``); any other end (a right
/// `currentPassword` or code, a log-in stopped for its second factor, a failure) gives the
/// reservation back (``releaseAttempt(_:threshold:)``).
extension UserStore {
    /// An attempt's parameters.
    struct Attempt {
        /// The client's network (``ClientNetwork``).
        var network: String
        /// When the per-account window the attempt falls in ends.
        var windowEnd: Date
        /// Attempts per account and network in a window; 0: no per-account limit.
        var perAccount: Int
        /// The limit over all networks, in multiples of `perAccount`.
        var ceiling: Int
        /// At `logIn`: the SHA-256 of the request's installation id. An installation that had a
        /// session of the account since `knownSince` lets the right password past the limits, so
        /// its attempt is checked (and reserved) past the per-account limit. Nil elsewhere.
        var installation: [UInt8]?
        var knownSince: Date
        /// Lockout's threshold and the end of a lock that starts now; nil: lockout is off.
        var lockout: (threshold: Int, lockUntil: Date)?
        var now: Date
    }

    /// What counting an attempt found.
    struct AttemptCount {
        /// Past the per-account limit (this attempt included): not reserved, unless its
        /// installation is known.
        var limited: Bool
        /// The request's installation had a session of the account since `knownSince`.
        var installationKnown: Bool
        /// The lock in force (an attempt on a locked account is not reserved); nil when not locked.
        var lockedUntil: Date?
        /// The attempt's lockout reservation; nil when none was taken.
        var reservation: Reservation?
    }

    /// A lockout reservation: the user, and the lock the attempt started (it took the
    /// threshold-th), if any.
    struct Reservation {
        var userId: String
        var startedLock: Date?
    }

    /// The tail of every statement that counts an attempt: it counts the attempt in
    /// `login_attempts`, judges it against the per-account limit and, when lockout is on and the
    /// attempt will be checked (not past the limit, or from a known installation; the account not
    /// locked), takes its lockout reservation.
    ///
    /// Input, the statement's CTEs before it: `attempt` (written `attempt AS (\(attemptRow: a))`),
    /// one row of the parameters (`network`, `window_end`, `per_account`, `ceiling`,
    /// `installation`, `known_since`, `threshold` (0: lockout off), `now`, `lock_until`), then `found`, the account (`object_id`, `lockout_until`;
    /// no row: nothing is counted), locked (``rowLock(_:)``) when lockout is on, so that the user's
    /// row is locked before its `login_attempts` row, as every other transaction touching both does.
    /// Output: CTEs `judged` (`limited`, `installation_known`) and `reserved`; select
    /// ``attemptColumns`` `FROM found, judged`.
    static let countAttempt: StaticString = """
        counted AS (
            INSERT INTO login_attempts AS a (user_id, expires_at, network, attempts)
            SELECT found.object_id, attempt.window_end, attempt.network, 1 FROM found, attempt WHERE attempt.per_account > 0
            ON CONFLICT (user_id, expires_at, network)
            DO UPDATE SET attempts = least(a.attempts + 1, (SELECT per_account + 1 FROM attempt))
            RETURNING attempts
        ), judged AS (
            SELECT found.object_id,
                   EXISTS (SELECT 1 FROM known_installations k
                           WHERE k.user_id = found.object_id AND k.installation_digest = attempt.installation
                             AND k.session_ends_at > attempt.known_since) AS installation_known,
                   attempt.per_account > 0 AND (
                       coalesce((SELECT attempts FROM counted), 0) > attempt.per_account
                       OR coalesce((SELECT attempts FROM counted), 0)
                          + (SELECT coalesce(sum(least(o.attempts, attempt.per_account)), 0) FROM login_attempts o
                             WHERE o.user_id = found.object_id AND o.expires_at = attempt.window_end
                               AND o.network <> attempt.network)
                          > attempt.per_account * attempt.ceiling) AS limited
            FROM found, attempt
        ), reserved AS (
            UPDATE users u SET
                failed_login_count = CASE WHEN u.failed_login_count + 1 >= attempt.threshold THEN 0
                                          ELSE u.failed_login_count + 1 END,
                lockout_until = CASE WHEN u.failed_login_count + 1 >= attempt.threshold THEN attempt.lock_until
                                     ELSE u.lockout_until END
            FROM judged, attempt
            WHERE u.object_id = judged.object_id AND attempt.threshold > 0
              AND (u.lockout_until IS NULL OR u.lockout_until <= attempt.now)
              AND (NOT judged.limited OR judged.installation_known)
            RETURNING u.lockout_until > attempt.now AS started_lock
        )
        """

    /// What a statement ending in ``countAttempt`` selects for ``attemptCount(_:from:userId:attempt:)``.
    static let attemptColumns: StaticString = """
        judged.limited, judged.installation_known, found.lockout_until,
        EXISTS (SELECT 1 FROM reserved), coalesce((SELECT started_lock FROM reserved), false)
        """

    /// Decodes ``attemptColumns`` starting at `column`.
    static func attemptCount(_ row: PostgresRow, from column: Int, userId: String, attempt: Attempt) throws(PostgresError) -> AttemptCount {
        let reserved = try row.decode(Bool.self, at: column + 3)
        let lockoutUntil = try row.decode(Date?.self, at: column + 2)
        return AttemptCount(
            limited: try row.decode(Bool.self, at: column), installationKnown: try row.decode(Bool.self, at: column + 1),
            lockedUntil: reserved ? nil : lockoutUntil.flatMap { $0 > attempt.now ? $0 : nil },
            reservation: reserved
                ? Reservation(userId: userId, startedLock: try row.decode(Bool.self, at: column + 4) ? attempt.lockout?.lockUntil : nil)
                : nil)
    }

    /// `FOR NO KEY UPDATE` (the lock the reservation's update takes, which concurrent sessions'
    /// foreign key checks do not wait for) when lockout is on (see ``countAttempt``).
    static func rowLock(_ attempt: Attempt) -> StaticString {
        attempt.lockout == nil ? "" : "FOR NO KEY UPDATE"
    }

    /// Counts an attempt at a credential of the user `userId` (no installation is exempt); nil when
    /// there is no such user. Written with `synchronous_commit` off, as log-in counts are
    /// (``logInAttempt(name:attempt:)``).
    func accountAttempt(userId: String, attempt: Attempt) throws -> AttemptCount? {
        try pool.withConnection(retry: .never) { connection in try connection.transaction { tx in
            try tx.execute("SET LOCAL synchronous_commit TO off")
            guard let row = try tx.queryFirst("""
                WITH attempt AS (\(attemptRow: attempt)), found AS (
                    SELECT u.object_id, u.lockout_until FROM users u WHERE u.object_id = \(userId) \(sql: Self.rowLock(attempt))
                ), \(sql: Self.countAttempt)
                SELECT \(sql: Self.attemptColumns) FROM found, judged
                """) else { return nil }
            return try Self.attemptCount(row, from: 0, userId: userId, attempt: attempt)
        } }
    }

    /// Gives a lockout reservation back: the count goes down by one or, when the attempt started
    /// the lock and it is still that lock, the lock is lifted and the count is back below the
    /// threshold.
    func releaseAttempt(_ reservation: Reservation, threshold: Int) throws {
        _ = try pool.withConnection(retry: .never) { connection in
            try connection.execute("""
                UPDATE users SET
                    failed_login_count = CASE WHEN lockout_until = \(reservation.startedLock) THEN \(threshold - 1)
                                              ELSE greatest(failed_login_count - 1, 0) END,
                    lockout_until = CASE WHEN lockout_until = \(reservation.startedLock) THEN NULL ELSE lockout_until END
                WHERE object_id = \(reservation.userId)
                """)
        }
    }
}

extension PostgresQuery.StringInterpolation {
    /// The `attempt` row of a statement ending in ``UserStore/countAttempt``: the attempt's
    /// parameters, each a bound value.
    mutating func appendInterpolation(attemptRow attempt: UserStore.Attempt) {
        appendLiteral("SELECT ")
        appendInterpolation(attempt.network); appendLiteral("::text AS network, ")
        appendInterpolation(attempt.windowEnd); appendLiteral("::timestamptz AS window_end, ")
        appendInterpolation(attempt.perAccount); appendLiteral("::integer AS per_account, ")
        appendInterpolation(attempt.ceiling); appendLiteral("::integer AS ceiling, ")
        appendInterpolation(attempt.installation); appendLiteral("::bytea AS installation, ")
        appendInterpolation(attempt.knownSince); appendLiteral("::timestamptz AS known_since, ")
        appendInterpolation(attempt.lockout?.threshold ?? 0); appendLiteral("::integer AS threshold, ")
        appendInterpolation(attempt.now); appendLiteral("::timestamptz AS now, ")
        appendInterpolation(attempt.lockout?.lockUntil); appendLiteral("::timestamptz AS lock_until")
    }
}
