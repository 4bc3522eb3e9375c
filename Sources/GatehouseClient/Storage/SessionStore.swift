import Foundation

/// Where ``GatehouseAuth`` keeps the session token, the user it belongs to, and the
/// installation id between launches.
///
/// Implementations store opaque bytes under a few fixed keys. ``FileSessionStore`` is the
/// default; ``MemorySessionStore`` is for tests and previews; `KeychainSessionStore` exists
/// where the Security framework does.
public protocol SessionStore: Sendable {
    /// The bytes stored under `key`, or `nil` when there are none.
    func read(_ key: SessionStoreKey) throws -> Data?
    /// Stores `data` under `key`, replacing what was there.
    func write(_ data: Data, for key: SessionStoreKey) throws
    /// Removes what is stored under `key`; removing a missing key is not an error.
    func remove(_ key: SessionStoreKey) throws
}

/// A name under which a ``SessionStore`` keeps one item.
public struct SessionStoreKey: RawRepresentable, Sendable, Hashable {
    /// The name, usable as a file name or Keychain account.
    public let rawValue: String

    /// Creates a key.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The session: token and user, as JSON.
    public static let session = SessionStoreKey(rawValue: "session.json")
    /// The installation id, as UTF-8 text.
    public static let installationId = SessionStoreKey(rawValue: "installation-id")
    /// The id of this installation's anonymous (guest) user, as UTF-8 text.
    public static let anonymousId = SessionStoreKey(rawValue: "anonymous-id")
}

/// What is stored under ``SessionStoreKey/session``.
struct StoredSession: Sendable, Hashable, Codable {
    var sessionToken: String
    var user: User
}
