import Foundation

/// A passkey registered by the signed-in user, as ``GatehouseAuth/passkeys()`` lists them (the
/// `Passkey` type of the schema). The key itself stays on the device that made it.
public struct Passkey: Sendable, Hashable {
    /// The Relay global id, for ``GatehouseAuth/removePasskey(id:)``.
    public var id: String
    /// The Parse object id.
    public var objectId: String
    /// The name given at registration (e.g. the device's).
    public var name: String
    /// When it was registered.
    public var createdAt: Date
    /// When it last logged in; `nil` when never.
    public var lastUsedAt: Date?

    /// Creates a passkey value (the SDK builds these from server responses).
    public init(id: String, objectId: String, name: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.objectId = objectId
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The fields the SDK asks for, as a GraphQL fragment on `Passkey`.
    static let fragment = "fragment PasskeyFields on Passkey { id objectId name createdAt lastUsedAt }"

    /// Reads a passkey from the JSON of a `PasskeyFields` selection.
    init(json: JSONValue) throws(GatehouseError) {
        guard let id = json["id"]?.string, let objectId = json["objectId"]?.string, let name = json["name"]?.string,
            let createdAt = json["createdAt"]?.string.flatMap(User.parseDate)
        else { throw .server(code: nil, message: "The server's passkey object is incomplete.") }
        self.init(
            id: id, objectId: objectId, name: name, createdAt: createdAt, lastUsedAt: json["lastUsedAt"]?.string.flatMap(User.parseDate))
    }
}

@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension Passkey: Identifiable {}
