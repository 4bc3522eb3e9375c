import Foundation

/// A signed access token as `Viewer.accessToken` returns it: the compact JWT and what a client
/// needs to know without decoding it.
public struct AccessToken: Sendable, Hashable {
    /// The compact JWS (RFC 9068 `at+jwt`).
    public var token: String
    /// Always `Bearer`.
    public var tokenType: String { "Bearer" }
    /// The `exp` claim.
    public var expiresAt: Date
    /// The `aud` claim.
    public var audience: String

    public init(token: String, expiresAt: Date, audience: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.audience = audience
    }
}
