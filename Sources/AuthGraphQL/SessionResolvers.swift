import Auth
import Foundation
import GraphQL
import JSON

/// Sessions a user can see and end: `Session`, `Viewer.session`/`sessions`, `revokeSession`,
/// `revokeOtherSessions`.
extension AuthGraphQL {
    /// A session as shown to a caller: `current` is whether it is the caller's own.
    struct SessionView: Sendable {
        let session: Session
        let current: Bool
    }

    struct RevokedPayload: Sendable {
        let revoked: Int
        let clientMutationId: String?
    }

    static func bindSessions(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.bind(SessionView.self, to: "Session")
        r.field("Viewer.session", on: SessionGrant.self, runs: .pure) { grant, _, _, _ in
            .value(SessionView(session: grant.session, current: true))
        }
        r.field("Viewer.sessions", on: SessionGrant.self) { grant, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.sessions.sessions(of: grant).map { .value(SessionView(session: $0, current: $0.objectId == grant.session.objectId)) })
            }
        }
        r.field("Session.id", \SessionView.session.globalId)
        r.field("Session.objectId", \SessionView.session.objectId)
        r.field("Session.createdAt", value: \SessionView.session.createdAt)
        r.field("Session.updatedAt", value: \SessionView.session.updatedAt)
        r.field("Session.expiresAt", value: \SessionView.session.expiresAt)
        r.field("Session.lastUsedAt", value: \SessionView.session.lastUsedAt)
        r.field("Session.installationId", \SessionView.session.installationId)
        r.field("Session.createdWith", on: SessionView.self, runs: .pure) { view, _, _, _ in
            .json(.object([
                "action": .string(view.session.action), "authProvider": .string(view.session.authProvider),
                "factors": .array(view.session.factors.map(JSON.string)),
            ]))
        }
        r.field("Session.userAgent", \SessionView.session.userAgent)
        r.field("Session.current", \SessionView.current)

        r.field("Mutation.revokeSession") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                try auth.sessions.revokeSession(id: input["id"]?.stringValue ?? "", caller: caller)
                return .value(OKPayload(clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        bindOKPayload(&r, "RevokeSessionPayload")
        r.field("Mutation.revokeOtherSessions") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                let revoked = try auth.sessions.revokeOtherSessions(caller: caller)
                return .value(RevokedPayload(revoked: revoked, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("RevokeOtherSessionsPayload.revoked", \RevokedPayload.revoked)
        r.field("RevokeOtherSessionsPayload.clientMutationId", \RevokedPayload.clientMutationId)
    }
}
