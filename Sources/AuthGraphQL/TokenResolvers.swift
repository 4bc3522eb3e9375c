import Auth
import GraphQL

/// Access tokens: `Viewer.accessToken` and `AccessToken` (docs/tokens.md).
extension AuthGraphQL {
    static func bindTokens(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.bind(AccessToken.self, to: "AccessToken")
        // One signature with a key held in memory: no database, so it runs where the viewer was settled.
        r.field("Viewer.accessToken", on: SessionGrant.self, runs: .pure) { grant, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .value(try auth.tokens.accessToken(for: grant, audience: arguments["audience"]?.stringValue, request: context.request))
            }
        }
        r.field("AccessToken.token", \AccessToken.token)
        r.field("AccessToken.tokenType", \AccessToken.tokenType)
        r.field("AccessToken.expiresAt", value: \AccessToken.expiresAt)
        r.field("AccessToken.audience", \AccessToken.audience)
    }
}
