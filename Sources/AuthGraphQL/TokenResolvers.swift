import Auth
import GraphQL

/// Access tokens: `Viewer.accessToken` and `AccessToken` (docs/tokens.md); the apps a user let in.
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
        bindAuthorizedApps(&r, auth: auth, log: log)
    }

    /// The apps a user let in through the OAuth provider (docs/oauth.md): `Viewer.authorizedApps`
    /// and `revokeAuthorizedApp`.
    static func bindAuthorizedApps(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.bind(OAuthService.AuthorizedApp.self, to: "AuthorizedApp")
        r.field("Viewer.authorizedApps", on: SessionGrant.self) { grant, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.oauth.authorizedApps(grant).map { .value($0) })
            }
        }
        r.field("AuthorizedApp.clientId", \OAuthService.AuthorizedApp.clientId)
        r.field("AuthorizedApp.name", \OAuthService.AuthorizedApp.name)
        r.field("AuthorizedApp.scopes", on: OAuthService.AuthorizedApp.self, runs: .pure) { app, _, _, _ in
            .list(app.scopes.map(\.resolvedValue))
        }
        r.field("AuthorizedApp.grantedAt", value: \OAuthService.AuthorizedApp.grantedAt)
        r.field("Mutation.revokeAuthorizedApp") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                try auth.oauth.revokeAuthorizedApp(caller, clientId: input["clientId"]?.stringValue ?? "")
                return .value(OKPayload(clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        bindOKPayload(&r, "RevokeAuthorizedAppPayload")
    }
}
