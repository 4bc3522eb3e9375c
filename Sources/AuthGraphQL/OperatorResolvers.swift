import Auth
import Foundation
import GraphQL
import JSON

/// What operators do with the master keys (docs/operators.md): `users` in Parse's connection
/// shape, `User.disabled`, `disabledReason`, `sessions` and `passkeys`, and the mutations
/// `disableUser`, `enableUser`, `revokeUserSessions` and `logInAs`.
extension AuthGraphQL {
    /// The source of `UserConnection`: the page, and the search for `count` (run only when asked).
    struct UserConnectionSource: Sendable {
        let page: UserPage
        let search: UserSearch
        let request: AuthRequest
    }

    struct UserEdgeSource: Sendable {
        let user: User
        let cursor: String
    }

    struct RevokedUserSessionsPayload: Sendable {
        let revoked: Int
        let clientMutationId: String?
    }

    static func bindOperators(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.field("Query.users") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let search = try userSearch(arguments)
                let page = try auth.operators.users(search, request: context.request)
                return .value(UserConnectionSource(page: page, search: search, request: context.request))
            }
        }
        r.field("UserConnection.edges", on: UserConnectionSource.self, runs: .pure) { source, _, _, _ in
            .list(source.page.edges.map { .value(UserEdgeSource(user: $0.user, cursor: $0.cursor)) })
        }
        r.field("UserConnection.pageInfo", on: UserConnectionSource.self, runs: .pure) { source, _, _, _ in
            .json(.object([
                "hasNextPage": .bool(source.page.hasNextPage), "hasPreviousPage": .bool(source.page.hasPreviousPage),
                "startCursor": source.page.edges.first.map { .string($0.cursor) } ?? .null,
                "endCursor": source.page.edges.last.map { .string($0.cursor) } ?? .null,
            ]))
        }
        r.resolveFromJSON("PageInfo")
        r.field("UserConnection.count", on: UserConnectionSource.self) { source, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .int(try auth.operators.count(source.search, request: source.request))
            }
        }
        r.field("UserEdge.node", value: \UserEdgeSource.user)
        r.field("UserEdge.cursor", \UserEdgeSource.cursor)

        r.field("User.disabled", runs: .pure) { source, _, _, _ in .bool(try Self.user(source, "disabled").disabled) }
        r.field("User.disabledReason", runs: .pure) { source, _, context, _ in
            guard context.request.readsAsMaster else { return .null }
            return optional(try Self.user(source, "disabledReason").disabledReason)
        }
        r.field("User.sessions", on: User.self) { user, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.operators.sessions(userId: user.objectId, request: context.request).map {
                    .value(SessionView(session: $0, current: false))
                })
            }
        }
        r.field("User.passkeys", on: User.self) { user, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.operators.passkeys(userId: user.objectId, request: context.request).map { .value($0) })
            }
        }

        r.field("Mutation.disableUser") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let user = try auth.operators.disableUser(
                    id: input["id"]?.stringValue ?? "", reason: input["reason"]?.stringValue, request: context.request)
                return .value(UserPayload(user: user, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.enableUser") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let user = try auth.operators.enableUser(id: input["id"]?.stringValue ?? "", request: context.request)
                return .value(UserPayload(user: user, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        for payload in ["DisableUserPayload", "EnableUserPayload"] {
            r.field("\(payload).user", value: \UserPayload.user)
            r.field("\(payload).clientMutationId", \UserPayload.clientMutationId)
        }
        r.field("Mutation.revokeUserSessions") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let revoked = try auth.operators.revokeUserSessions(id: input["id"]?.stringValue ?? "", request: context.request)
                return .value(RevokedUserSessionsPayload(revoked: revoked, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("RevokeUserSessionsPayload.revoked", \RevokedUserSessionsPayload.revoked)
        r.field("RevokeUserSessionsPayload.clientMutationId", \RevokedUserSessionsPayload.clientMutationId)
        r.field("Mutation.logInAs") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let grant = try auth.operators.logInAs(
                    id: input["id"]?.stringValue ?? "", reason: input["reason"]?.stringValue, request: context.request)
                return .value(Payload(viewer: grant, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("LogInAsPayload.viewer", value: \Payload.viewer)
        r.field("LogInAsPayload.clientMutationId", \Payload.clientMutationId)
    }

    /// `users`' arguments as a ``UserSearch``: 142 for more than one order, or a provider
    /// condition other than `equalTo`.
    static func userSearch(_ arguments: JSONObject) throws(AuthError) -> UserSearch {
        var search = UserSearch()
        let conditions = arguments["where"]?.objectValue ?? [:]
        func equalTo(_ name: String) -> JSON? {
            guard let value = conditions[name]?.objectValue?["equalTo"], value != .null else { return nil }
            return value
        }
        func text(_ name: String) -> UserSearch.Text? {
            guard let object = conditions[name]?.objectValue else { return nil }
            let text = UserSearch.Text(equalTo: object["equalTo"]?.stringValue, startsWith: object["startsWith"]?.stringValue)
            return text.equalTo == nil && text.startsWith == nil ? nil : text
        }
        search.objectId = equalTo("objectId")?.stringValue
        search.username = text("username")
        search.email = text("email")
        search.emailVerified = equalTo("emailVerified")?.boolValue
        search.disabled = equalTo("disabled")?.boolValue
        search.mfa = equalTo("mfa")?.boolValue
        if let provider = conditions["authProvider"]?.objectValue {
            if provider["startsWith"].map({ $0 != .null }) == true {
                throw .invalidArgument("authProvider takes equalTo only.")
            }
            search.authProvider = provider["equalTo"]?.stringValue
        }
        if let created = conditions["createdAt"]?.objectValue {
            search.createdAfter = created["greaterThan"]?.stringValue.flatMap(ISO8601.parse)
            search.createdBefore = created["lessThan"]?.stringValue.flatMap(ISO8601.parse)
        }
        let orders = arguments["order"]?.arrayValue ?? []
        guard orders.count <= 1 else { throw .invalidArgument("order takes one value.") }
        if let order = orders.first?.stringValue.flatMap(UserSearch.Order.init(rawValue:)) { search.order = order }
        if let first = arguments["first"], first != .null {
            guard let count = first.intValue else { throw .invalidArgument("first must be between 1 and \(UserSearch.maximumPageSize).") }
            search.first = count
        }
        search.after = arguments["after"]?.stringValue
        return search
    }
}
