import Foundation
import JWT
import Postgres

/// The keys that sign access tokens (`signing_keys`, migration 13): each key's schedule and its
/// private half sealed under `GATEHOUSE_SECRET_KEY`, so every instance signs with the same keys
/// and a database read alone gives none away. Every change is announced on
/// ``AuthMigrations/Channel/signingKeys``.
struct SigningKeyStore: Sendable {
    let pool: Pool

    /// A stored key: its schedule and its sealed DER encoding.
    struct Row: Sendable {
        var key: SigningKeySchedule.Key
        var sealedPrivateKey: [UInt8]
    }

    private static let columns: StaticString = "kid, generation, algorithm, created_at, signs_from, sealed_private_key"

    private static func row(_ row: PostgresRow) throws -> Row {
        let name = try row.decode(String.self, at: 2)
        guard let algorithm = SigningAlgorithm(rawValue: name) else {
            throw SigningKeys.Failure("a stored signing key has the unknown algorithm \(name.utf8Prefix(16))")
        }
        return Row(
            key: SigningKeySchedule.Key(
                keyId: try row.decode(String.self, at: 0), generation: try row.decode(Int64.self, at: 1), algorithm: algorithm,
                createdAt: try row.decode(Date.self, at: 3), signsFrom: try row.decode(Date.self, at: 4)),
            sealedPrivateKey: try row.decode([UInt8].self, at: 5))
    }

    /// Every stored key.
    func all() throws -> [Row] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("SELECT \(sql: Self.columns) FROM signing_keys ORDER BY generation").map(Self.row)
        }
    }

    /// Stores `key` unless a key of its generation (or id) exists: of two instances adding the
    /// same replacement at once, one adds it. True when this one did.
    func insert(_ key: SigningKeySchedule.Key, sealedPrivateKey: [UInt8]) throws -> Bool {
        try pool.withConnection(retry: .once) { connection in
            try Self.insert(key, sealedPrivateKey: sealedPrivateKey, in: connection)
        }
    }

    private static func insert(_ key: SigningKeySchedule.Key, sealedPrivateKey: [UInt8], in connection: some PostgresQueryable) throws -> Bool {
        try connection.queryFirst("""
            INSERT INTO signing_keys (kid, generation, algorithm, created_at, signs_from, sealed_private_key)
            VALUES (\(key.keyId), \(key.generation), \(key.algorithm.rawValue), \(key.createdAt), \(key.signsFrom), \(sealedPrivateKey))
            ON CONFLICT DO NOTHING RETURNING 1
            """) != nil
    }

    /// Deletes the keys `keyIds` (ended ones: idempotent, so several instances may do it at once).
    func delete(keyIds: [String]) throws {
        guard !keyIds.isEmpty else { return }
        try pool.withConnection(retry: .once) { connection in
            _ = try connection.execute("DELETE FROM signing_keys WHERE kid = ANY(\(PostgresArray(keyIds)))")
        }
    }

    /// What ``revoke(keyId:replacement:)`` did.
    enum Revocation: Sendable, Equatable {
        /// No key has that id.
        case noSuchKey
        /// The key is deleted; `replacement` is the key made because none was left.
        case revoked(replacement: SigningKeySchedule.Key?)
    }

    /// Deletes the key `keyId` and, when no key is left, stores the one `replacement` makes (given
    /// the deleted key's generation), in one transaction, so that the set is never left empty.
    func revoke(keyId: String, replacement: (Int64) throws -> (SigningKeySchedule.Key, [UInt8])) throws -> Revocation {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx throws -> Revocation in
                guard let generation = try tx.queryFirst("DELETE FROM signing_keys WHERE kid = \(keyId) RETURNING generation")?
                    .decode(Int64.self, at: 0)
                else { return .noSuchKey }
                guard try tx.queryFirst("SELECT 1 FROM signing_keys LIMIT 1") == nil else { return .revoked(replacement: nil) }
                let (key, sealed) = try replacement(generation)
                _ = try Self.insert(key, sealedPrivateKey: sealed, in: tx)
                return .revoked(replacement: key)
            }
        }
    }

    /// Whether a token signed by `keyId` for the session `sessionId` of `userId` is still backed:
    /// the session is live (not ended, expired or idle past `idleCutoff`) and the key not revoked.
    func isLive(sessionId: String, userId: String, keyId: String, now: Date, idleCutoff: Date) throws -> Bool {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT EXISTS (
                        SELECT 1 FROM sessions s WHERE s.object_id = \(sessionId) AND s.user_id = \(userId)
                          AND s.expires_at > \(now) AND s.last_used_at > \(idleCutoff))
                   AND EXISTS (SELECT 1 FROM signing_keys k WHERE k.kid = \(keyId))
                """)?.decode(Bool.self, at: 0) ?? false
        }
    }
}
