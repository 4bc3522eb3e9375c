import Foundation

/// A short-lived signed token (an RFC 9068 JWT) for one of the app's own services, which verifies
/// it with the server's key set (`/.well-known/jwks.json`) without calling the server. Send it as
/// `Authorization: Bearer <token>`. ``GatehouseAuth/accessToken(audience:)`` gets one.
public struct AccessToken: Sendable, Hashable {
    /// The compact JWT.
    public var token: String
    /// When it stops being valid (its `exp` claim).
    public var expiresAt: Date
    /// The service it is for (its `aud` claim).
    public var audience: String

    /// Creates a token value (the SDK builds these from server responses).
    public init(token: String, expiresAt: Date, audience: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.audience = audience
    }

    /// The fields the SDK asks for, as a selection of `AccessToken`.
    static let selection = "{ token expiresAt audience }"

    /// Reads a token from the JSON of ``selection``.
    init(json: JSONValue?) throws(GatehouseError) {
        guard let token = json?["token"]?.string, let audience = json?["audience"]?.string,
            let expiresAt = json?["expiresAt"]?.string.flatMap(User.parseDate)
        else { throw .server(code: nil, message: "The server sent no access token.") }
        self.init(token: token, expiresAt: expiresAt, audience: audience)
    }
}
