import Foundation

/// Access tokens for the app's own services (docs/tokens.md).
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// A signed access token of the current session for `audience` (nil: the server's default),
    /// to send to one of the app's own services as `Authorization: Bearer <token>`.
    ///
    /// The token is kept and returned again until 30 seconds before it expires, then a new one is
    /// fetched; callers asking at the same time share one request.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/orders")!)
    /// request.setValue("Bearer \(try await auth.accessToken().token)", forHTTPHeaderField: "Authorization")
    /// ```
    ///
    /// - Throws: ``GatehouseError/sessionInvalid`` when signed out or the server no longer knows
    ///   the session, ``GatehouseError/unknownAudience(_:)``, ``GatehouseError/emailNotVerified``,
    ///   ``GatehouseError/secondFactorEnrollmentRequired``, or a network or server error.
    public func accessToken(audience: String? = nil) async throws(GatehouseError) -> AccessToken {
        let session = try requireSession()
        return try await accessTokens.token(sessionToken: session.sessionToken, audience: audience, now: Date()) {
            () async throws(GatehouseError) -> AccessToken in
            let data = try await self.authenticated(
                "query AccessToken($audience: String) { viewer { accessToken(audience: $audience) \(AccessToken.selection) } }",
                variables: ["audience": audience.map(JSONValue.string) ?? .null], as: session)
            return try AccessToken(json: data["viewer"]?["accessToken"])
        }
    }
}
