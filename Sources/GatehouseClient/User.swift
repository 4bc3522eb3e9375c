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
    /// The name to show for the user (1 to 256 characters), when set: see
    /// ``GatehouseAuth/updateProfile(displayName:photoURL:)``.
    public var displayName: String?
    /// The address of the user's picture (https, or http on a loopback host), when set.
    public var photoURL: URL?
    /// The values of the fields the app declares on the server (`GATEHOUSE_USER_FIELDS`), by
    /// name: only the fields that have a value (a field that is `null`, or that this user may
    /// not read, is absent). ``GatehouseAuth/userFieldNames()`` lists every declared field.
    public var fields: [String: JSONValue]

    /// Creates a user value (the SDK builds these from server responses).
    public init(
        id: String, objectId: String, username: String?, email: String?, emailVerified: Bool?, createdAt: Date,
        updatedAt: Date, displayName: String? = nil, photoURL: URL? = nil, fields: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.objectId = objectId
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.displayName = displayName
        self.photoURL = photoURL
        self.fields = fields
    }

    /// Reads a stored user; one stored before `fields` existed has none (a session kept by an
    /// older version of the app stays signed in).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        objectId = try container.decode(String.self, forKey: .objectId)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        photoURL = try container.decodeIfPresent(URL.self, forKey: .photoURL)
        fields = try container.decodeIfPresent([String: JSONValue].self, forKey: .fields) ?? [:]
    }

    /// The built-in fields of `User` the SDK reads.
    static let selectedFields = [
        "id", "objectId", "username", "email", "emailVerified", "createdAt", "updatedAt", "displayName", "photoURL",
    ]
    /// Every built-in field of the server's `User`: those the SDK reads and those it does not. Any
    /// other field of `User` is one the app declares.
    static let builtInFields = Set(
        selectedFields + ["ACL", "authData", "authDataResponse", "disabled", "disabledReason", "sessions", "passkeys"])

    /// The fields the SDK asks for, as a GraphQL fragment on `User`: the built-in ones and the
    /// app's `declared` fields.
    static func fragment(declared: [String]) -> String {
        "fragment UserFields on User { " + (selectedFields + declared).joined(separator: " ") + " }"
    }

    /// Reads a user from the JSON of a `UserFields` selection that has the `declared` fields.
    init(json: JSONValue, declared: [String]) throws(GatehouseError) {
        guard let id = json["id"]?.string, let objectId = json["objectId"]?.string,
            let createdAt = json["createdAt"]?.string.flatMap(Self.parseDate),
            let updatedAt = json["updatedAt"]?.string.flatMap(Self.parseDate)
        else { throw .server(code: nil, message: "The server's user object is incomplete.") }
        var fields: [String: JSONValue] = [:]
        for name in declared {
            if let value = json[name], value != .null { fields[name] = value }
        }
        self.init(
            id: id, objectId: objectId, username: json["username"]?.string, email: json["email"]?.string,
            emailVerified: json["emailVerified"]?.bool, createdAt: createdAt, updatedAt: updatedAt,
            displayName: json["displayName"]?.string, photoURL: json["photoURL"]?.string.flatMap(URL.init(string:)),
            fields: fields)
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
