import Foundation

/// One signed-in device or app of the current user, as ``GatehouseAuth/sessions()`` lists them
/// (the `Session` type of `schema.graphql`). The token itself is never readable.
public struct Session: Sendable, Hashable {
    /// The Relay global id (`base64("_Session:" + objectId)`).
    public var id: String
    /// The Parse object id: 10 characters from `[A-Za-z0-9]`, shorter to show and type.
    public var objectId: String
    /// When the session was created (at sign-up or log-in).
    public var createdAt: Date
    /// When the session was last used, precise to within five minutes.
    public var lastUsedAt: Date
    /// When the session ends unless revoked or logged out before.
    public var expiresAt: Date
    /// The `X-Parse-Installation-Id` of the app that created it, if it sent one.
    public var installationId: String?
    /// The `User-Agent` of the request that created it, if any.
    public var userAgent: String?
    /// Whether this is the session of this ``GatehouseAuth``.
    public var isCurrent: Bool
    /// How the session was made (`createdWith.factors`): `["password"]`, `["password", "totp"]`,
    /// `["passkey"]`, `["passkey-unverified"]` (a passkey used without a PIN or biometrics), …;
    /// empty when the server does not say. Removing TOTP needs a session made with a second factor
    /// (`totp` or `passkey`).
    public var factors: [String]

    /// Creates a session value (the SDK builds these from server responses).
    public init(
        id: String, objectId: String, createdAt: Date, lastUsedAt: Date, expiresAt: Date, installationId: String?,
        userAgent: String?, isCurrent: Bool, factors: [String] = []
    ) {
        self.id = id
        self.objectId = objectId
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.installationId = installationId
        self.userAgent = userAgent
        self.isCurrent = isCurrent
        self.factors = factors
    }

    /// The fields the SDK asks for, as a GraphQL fragment on `Session`.
    static let fragment =
        "fragment SessionFields on Session { id objectId createdAt lastUsedAt expiresAt installationId userAgent current createdWith }"

    /// Reads a session from the JSON of a `SessionFields` selection.
    init(json: JSONValue) throws(GatehouseError) {
        guard let id = json["id"]?.string, let objectId = json["objectId"]?.string,
            let createdAt = json["createdAt"]?.string.flatMap(User.parseDate),
            let lastUsedAt = json["lastUsedAt"]?.string.flatMap(User.parseDate),
            let expiresAt = json["expiresAt"]?.string.flatMap(User.parseDate), let isCurrent = json["current"]?.bool
        else { throw .server(code: nil, message: "The server's session object is incomplete.") }
        self.init(
            id: id, objectId: objectId, createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt,
            installationId: json["installationId"]?.string, userAgent: json["userAgent"]?.string, isCurrent: isCurrent,
            factors: json["createdWith"]?["factors"]?.array?.compactMap(\.string) ?? [])
    }
}

@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension Session: Identifiable {}
