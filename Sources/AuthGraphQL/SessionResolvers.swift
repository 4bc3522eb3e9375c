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
        r.field("Viewer.session", on: SessionGrant.self) { grant, _, _, _ in
            .value(SessionView(session: grant.session, current: true))
        }
        r.field("Viewer.sessions", on: SessionGrant.self) { grant, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.sessions.sessions(of: grant).map { .value(SessionView(session: $0, current: $0.objectId == grant.session.objectId)) })
            }
        }
        r.field("Session.id", on: SessionView.self) { view, _, _, _ in .string(view.session.globalId) }
        r.field("Session.objectId", on: SessionView.self) { view, _, _, _ in .string(view.session.objectId) }
        r.field("Session.createdAt", on: SessionView.self) { view, _, _, _ in .value(view.session.createdAt) }
        r.field("Session.updatedAt", on: SessionView.self) { view, _, _, _ in .value(view.session.updatedAt) }
        r.field("Session.expiresAt", on: SessionView.self) { view, _, _, _ in .value(view.session.expiresAt) }
        r.field("Session.lastUsedAt", on: SessionView.self) { view, _, _, _ in .value(view.session.lastUsedAt) }
        r.field("Session.installationId", on: SessionView.self) { view, _, _, _ in optional(view.session.installationId) }
        r.field("Session.createdWith", on: SessionView.self) { view, _, _, _ in
            .json(.object([
                "action": .string(view.session.action), "authProvider": .string(view.session.authProvider),
                "factors": .array(view.session.factors.map(JSON.string)),
            ]))
        }
        r.field("Session.userAgent", on: SessionView.self) { view, _, _, _ in optional(view.session.userAgent) }
        r.field("Session.current", on: SessionView.self) { view, _, _, _ in .bool(view.current) }

        r.field("Mutation.revokeSession") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                try auth.sessions.revokeSession(id: input["id"]?.stringValue ?? "", caller: caller)
                return .value(OKPayload(clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("RevokeSessionPayload.ok", on: OKPayload.self) { _, _, _, _ in .bool(true) }
        r.field("RevokeSessionPayload.clientMutationId", on: OKPayload.self) { payload, _, _, _ in optional(payload.clientMutationId) }
        r.field("Mutation.revokeOtherSessions") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                let revoked = try auth.sessions.revokeOtherSessions(caller: caller)
                return .value(RevokedPayload(revoked: revoked, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("RevokeOtherSessionsPayload.revoked", on: RevokedPayload.self) { payload, _, _, _ in .int(payload.revoked) }
        r.field("RevokeOtherSessionsPayload.clientMutationId", on: RevokedPayload.self) { payload, _, _, _ in optional(payload.clientMutationId) }
    }
}
