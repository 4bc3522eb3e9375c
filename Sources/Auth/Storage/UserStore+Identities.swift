import Foundation
import Postgres

/// Linked third-party provider ids (`user_identities`, migration 5): one user per provider id,
/// one id per provider and user. Only the ids are stored, never a provider's token.
extension UserStore {
    /// Another user has this provider id (a concurrent sign-in with it committed first).
    struct IdentityTaken: Error {}

    /// The user's linked providers and their ids, by provider name.
    func identities(userId: String) throws -> [(provider: String, id: String)] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query(
                "SELECT provider, provider_user_id FROM user_identities WHERE user_id = \(userId) ORDER BY provider"
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        }
    }

    /// What linking a provider id changed.
    enum LinkOutcome {
        /// The user had no id of that provider.
        case added
        /// The user's earlier id of that provider was replaced.
        case replaced
        /// The user had that id already.
        case unchanged
    }

    /// The guest provider: its id is a device's, a way in only for an account that has no other
    /// (a password, another provider, a passkey).
    static let anonymous = "anonymous"

    /// Links the provider id to `userId`, replacing the user's earlier id of that provider;
    /// throws ``IdentityTaken`` when another user has it (a concurrent link of the same id waits
    /// for the first to commit, then finds it taken).
    @discardableResult
    static func link(provider: String, providerUserId: String, userId: String, now: Date, in tx: Transaction) throws -> LinkOutcome {
        let replaced = try tx.queryFirst("""
            DELETE FROM user_identities
            WHERE user_id = \(userId) AND provider = \(provider) AND provider_user_id <> \(providerUserId)
            RETURNING 1
            """) != nil
        guard let row = try tx.queryFirst("""
            WITH added AS (
                INSERT INTO user_identities (provider, provider_user_id, user_id, created_at)
                VALUES (\(provider), \(providerUserId), \(userId), \(now))
                ON CONFLICT (provider, provider_user_id) DO NOTHING
                RETURNING user_id)
            SELECT coalesce((SELECT user_id FROM added),
                            (SELECT user_id FROM user_identities WHERE provider = \(provider) AND provider_user_id = \(providerUserId))),
                   EXISTS (SELECT 1 FROM added)
            """), try row.decode(String?.self, at: 0) == userId
        else { throw IdentityTaken() }
        guard try row.decode(Bool.self, at: 1) else { return .unchanged }
        return replaced ? .replaced : .added
    }

    /// Removes the user's link to `provider`; whether there was one.
    static func unlink(provider: String, userId: String, in tx: Transaction) throws -> Bool {
        try tx.queryFirst("DELETE FROM user_identities WHERE user_id = \(userId) AND provider = \(provider) RETURNING 1") != nil
    }

    /// Removes every provider link of the user; the providers, by name.
    static func unlinkAll(userId: String, in tx: Transaction) throws -> [String] {
        try tx.query("DELETE FROM user_identities WHERE user_id = \(userId) RETURNING provider")
            .map { try $0.decode(String.self, at: 0) }.sorted()
    }

    /// Removes the user's guest link if the user has another way to log in (``hasWayToLogIn(userId:in:)``):
    /// a guest given a password, a provider or a passkey becomes a regular user, and the device's
    /// id stops being a way into the account. Whether it was removed.
    @discardableResult
    static func endGuestAccess(userId: String, in tx: Transaction) throws -> Bool {
        guard try hasWayToLogIn(userId: userId, in: tx) else { return false }
        return try unlink(provider: anonymous, userId: userId, in: tx)
    }

    /// Whether the user can still log in: a password, a linked provider other than `anonymous`
    /// (an anonymous id is a guest's, not a way back into an account), or a passkey not disabled.
    static func hasWayToLogIn(userId: String, in tx: Transaction) throws -> Bool {
        try tx.queryFirst("""
            SELECT 1 FROM users u WHERE u.object_id = \(userId)
              AND (u.password_hash IS NOT NULL
                   OR EXISTS (SELECT 1 FROM user_identities i WHERE i.user_id = u.object_id AND i.provider <> 'anonymous')
                   OR EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.object_id AND p.disabled_at IS NULL))
            """) != nil
    }
}
