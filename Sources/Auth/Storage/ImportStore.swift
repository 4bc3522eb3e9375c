import Foundation
import JSON
import Postgres

/// Writes imported users in batches on one connection: each batch is copied (`COPY`) into two
/// temporary tables, checked against the users already there in a few index-backed joins, and
/// inserted in one transaction with its users' identities, so a user is stored whole or not at
/// all. A user whose id is already there is skipped (a second run of the same import); one whose
/// username, email or provider id belongs to another user is refused.
struct ImportStore {
    let connection: Connection

    /// What one batch did, by the lines of its records.
    struct Outcome: Equatable {
        var imported: [Int] = []
        var skipped: [Int] = []
        var refused: [(line: Int, reason: String)] = []

        static func == (a: Outcome, b: Outcome) -> Bool {
            a.imported == b.imported && a.skipped == b.skipped && a.refused.map(\.line) == b.refused.map(\.line)
                && a.refused.map(\.reason) == b.refused.map(\.reason)
        }
    }

    /// Makes the connection's staging tables (emptied at every commit).
    init(connection: Connection) throws {
        self.connection = connection
        try connection.unsafeExecuteScript("""
            CREATE TEMPORARY TABLE IF NOT EXISTS import_users (
                line integer PRIMARY KEY, object_id text NOT NULL, username text NOT NULL, email text,
                email_verified boolean NOT NULL, password_hash text, display_name text, photo_url text,
                acl jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
                disabled_at timestamptz, disabled_reason text
            ) ON COMMIT DELETE ROWS;
            CREATE TEMPORARY TABLE IF NOT EXISTS import_identities (
                line integer NOT NULL, provider text NOT NULL, provider_user_id text NOT NULL
            ) ON COMMIT DELETE ROWS;
            """)
    }

    /// Imports `records` (no two with one id, log-in name or provider id: the importer checks the
    /// file) in one transaction. A concurrent write that makes a conflict after the check (a
    /// sign-up with an imported email) fails the transaction; the batch is then checked and
    /// written once more.
    func importBatch(_ records: [ImportRecord]) throws -> Outcome {
        do {
            return try attempt(records)
        } catch let error as PostgresError where error.sqlState == SQLState.uniqueViolation {
            return try attempt(records)
        }
    }

    private func attempt(_ records: [ImportRecord]) throws -> Outcome {
        try connection.transaction { tx in
            var users = CopyRows()
            var identities = CopyRows()
            for record in records {
                let line = String(record.line)
                users.append([
                    line, record.objectId, record.username, record.email, record.emailVerified ? "t" : "f",
                    record.passwordHash, record.displayName, record.photoURL, ACL().withOwner(record.objectId).jsonText,
                    Self.time(record.createdAt), Self.time(record.updatedAt), record.disabledAt.map(Self.time),
                    record.disabledReason,
                ])
                for identity in record.identities {
                    identities.append([line, identity.provider, identity.providerUserId])
                }
            }
            try tx.connection.copyIn("""
                COPY import_users (line, object_id, username, email, email_verified, password_hash, display_name, photo_url,
                                   acl, created_at, updated_at, disabled_at, disabled_reason) FROM STDIN
                """, rows: users)
            if identities.count > 0 {
                try tx.connection.copyIn("COPY import_identities (line, provider, provider_user_id) FROM STDIN", rows: identities)
            }
            // Statistics of the few staged rows, so that each check below is a loop of index
            // look-ups into the users table rather than a scan of it.
            try tx.unsafeExecuteScript("ANALYZE import_users; ANALYZE import_identities")
            var outcome = Outcome()
            var excluded = Set<Int>()
            for row in try tx.query("SELECT i.line FROM import_users i JOIN users u ON u.object_id = i.object_id ORDER BY 1") {
                let line = try row.decode(Int.self, at: 0)
                outcome.skipped.append(line)
                excluded.insert(line)
            }
            for row in try tx.query(Self.conflicts) {
                let line = try row.decode(Int.self, at: 0)
                guard !excluded.contains(line) else { continue }
                excluded.insert(line)
                outcome.refused.append((line, try row.decode(String.self, at: 1)))
            }
            let skip = PostgresArray(excluded.sorted())
            try tx.execute("""
                INSERT INTO users (object_id, username, email, password_hash, email_verified, acl, created_at, updated_at,
                                   display_name, photo_url, disabled_at, disabled_reason)
                SELECT object_id, username, email, password_hash, email_verified, acl, created_at, updated_at,
                       display_name, photo_url, disabled_at, disabled_reason
                FROM import_users WHERE line <> ALL(\(skip)::integer[])
                """)
            if identities.count > 0 {
                try tx.execute("""
                    INSERT INTO user_identities (provider, provider_user_id, user_id, created_at)
                    SELECT d.provider, d.provider_user_id, i.object_id, i.created_at
                    FROM import_identities d JOIN import_users i ON i.line = d.line
                    WHERE d.line <> ALL(\(skip)::integer[])
                    """)
            }
            outcome.imported = records.map(\.line).filter { !excluded.contains($0) }
            outcome.refused.sort { $0.line < $1.line }
            return outcome
        }
    }

    /// Staged users whose log-in names or provider ids belong to another user, with why: one
    /// join per unique index (an `OR` of them would scan the users table).
    static let conflicts: PostgresQuery = """
        SELECT i.line, 'the username is taken by user ' || u.object_id
        FROM import_users i JOIN users u ON lower(u.username) = lower(i.username) WHERE u.object_id <> i.object_id
        UNION ALL
        SELECT i.line, 'the username is the email of user ' || u.object_id
        FROM import_users i JOIN users u ON lower(u.email) = lower(i.username) WHERE u.object_id <> i.object_id
        UNION ALL
        SELECT i.line, 'the email is taken by user ' || u.object_id
        FROM import_users i JOIN users u ON lower(u.email) = lower(i.email) WHERE u.object_id <> i.object_id
        UNION ALL
        SELECT i.line, 'the email is the username of user ' || u.object_id
        FROM import_users i JOIN users u ON lower(u.username) = lower(i.email) WHERE u.object_id <> i.object_id
        UNION ALL
        SELECT i.line, 'the ' || d.provider || ' id is linked to user ' || x.user_id
        FROM import_identities d JOIN import_users i ON i.line = d.line
        JOIN user_identities x ON x.provider = d.provider AND x.provider_user_id = d.provider_user_id
        WHERE x.user_id <> i.object_id
        ORDER BY 1
        """

    /// `2026-11-30T08:00:00.000Z`.
    private static func time(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISO8601.write(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
