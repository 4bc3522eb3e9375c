import Foundation

/// A Gatehouse user as the server returns it (the `User` type of `schema.graphql`).
public struct User: Sendable, Hashable, Codable {
    /// The Relay global id (`base64("_User:" + objectId)`).
    public var id: String
    /// The Parse object id: 10 characters from `[A-Za-z0-9]`.
    public var objectId: String
    /// The username, as given at sign-up.
    public var username: String?
    /// The email address, when the user gave one.
    public var email: String?
    /// Whether the email address was verified.
    public var emailVerified: Bool?
    /// When the account was created.
    public var createdAt: Date
    /// When the account was last changed.
    public var updatedAt: Date

    /// Creates a user value (the SDK builds these from server responses).
    public init(
        id: String, objectId: String, username: String?, email: String?, emailVerified: Bool?, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.objectId = objectId
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The fields the SDK asks for, as a GraphQL fragment on `User`.
    static let fragment = "fragment UserFields on User { id objectId username email emailVerified createdAt updatedAt }"

    /// Reads a user from the JSON of a `UserFields` selection.
    init(json: JSONValue) throws(GatehouseError) {
        guard let id = json["id"]?.string, let objectId = json["objectId"]?.string,
            let createdAt = json["createdAt"]?.string.flatMap(Self.parseDate),
            let updatedAt = json["updatedAt"]?.string.flatMap(Self.parseDate)
        else { throw .server(code: nil, message: "The server's user object is incomplete.") }
        self.init(
            id: id, objectId: objectId, username: json["username"]?.string, email: json["email"]?.string,
            emailVerified: json["emailVerified"]?.bool, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// Parses the `Date` scalar: ISO-8601 UTC with milliseconds (`2026-11-30T08:00:00.000Z`).
    static func parseDate(_ text: String) -> Date? {
        // A formatter per call: ISO8601DateFormatter is not Sendable, and this is rare.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
