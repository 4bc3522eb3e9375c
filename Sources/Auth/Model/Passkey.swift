import Foundation

/// A passkey (WebAuthn credential) as the API shows it: never its key or credential id.
public struct Passkey: Sendable, Hashable {
    /// 10 characters from [A-Za-z0-9].
    public var objectId: String
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(objectId: String, name: String, createdAt: Date, lastUsedAt: Date?) {
        self.objectId = objectId
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The Relay global id: standard base64 of `"Passkey:" + objectId`.
    public var globalId: String { GlobalID.encode(type: "Passkey", id: objectId) }
}
