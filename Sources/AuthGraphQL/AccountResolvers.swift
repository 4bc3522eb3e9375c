import Auth
import GraphQL
import JSON

/// The account lifecycle's fields: reset, verification, updateUser, deleteUser, user, node.
extension AuthGraphQL {
    /// `{ok: true}` payloads (and `clientMutationId`).
    struct OKPayload: Sendable {
        let clientMutationId: String?
    }

    /// Payloads that carry a user.
    struct UserPayload: Sendable {
        let user: User
        let clientMutationId: String?
    }

    static func bindAccounts(
        _ r: inout Resolvers<RequestContext>, auth: AuthService, userFields: UserFields, log: @escaping @Sendable (String) -> Void
    ) {
        /// A mutation answering `{ok: true}`: `body` gets the input object.
        func okMutation(_ name: String, _ body: @escaping @Sendable (JSONObject, RequestContext) throws(AuthError) -> Void) {
            r.field("Mutation.\(name)") { _, arguments, context, _ in
                let input = arguments["input"]?.objectValue ?? [:]
                return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                    try body(input, context)
                    return .value(OKPayload(clientMutationId: input["clientMutationId"]?.stringValue))
                }
            }
        }
        okMutation("resetPassword") { input, context throws(AuthError) in
            try auth.accounts.resetPassword(email: input["email"]?.stringValue ?? "", request: context.request)
        }
        okMutation("confirmResetPassword") { input, context throws(AuthError) in
            try auth.accounts.confirmResetPassword(
                username: input["username"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
                token: input["token"]?.stringValue ?? "", request: context.request)
        }
        okMutation("sendVerificationEmail") { input, context throws(AuthError) in
            try auth.accounts.sendVerificationEmail(email: input["email"]?.stringValue ?? "", request: context.request)
        }
        okMutation("verifyEmail") { input, context throws(AuthError) in
            try auth.accounts.verifyEmail(
                username: input["username"]?.stringValue ?? "", token: input["token"]?.stringValue ?? "", request: context.request)
        }
        for payload in ["ResetPasswordPayload", "ConfirmResetPasswordPayload", "SendVerificationEmailPayload", "VerifyEmailPayload"] {
            bindOKPayload(&r, payload)
        }

        r.field("Mutation.updateUser") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let user = try auth.accounts.updateUser(
                    id: input["id"]?.stringValue ?? "", changes: userChanges(input["fields"], userFields),
                    currentPassword: input["currentPassword"]?.stringValue,
                    caller: try context.caller(auth.sessions.viewer(token:)), request: context.request)
                return .value(UserPayload(user: user, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.deleteUser") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let user = try auth.accounts.deleteUser(
                    id: input["id"]?.stringValue ?? "", currentPassword: input["currentPassword"]?.stringValue,
                    caller: try context.caller(auth.sessions.viewer(token:)), request: context.request)
                return .value(UserPayload(user: user, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        for payload in ["UpdateUserPayload", "DeleteUserPayload"] {
            r.field("\(payload).user", value: \UserPayload.user)
            r.field("\(payload).clientMutationId", \UserPayload.clientMutationId)
        }

        r.field("Query.user") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .value(try auth.accounts.user(
                    id: arguments["id"]?.stringValue ?? "", caller: try context.caller(auth.sessions.viewer(token:)),
                    request: context.request))
            }
        }
        r.field("Query.node") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let id = arguments["id"]?.stringValue ?? ""
                let caller = try context.caller(auth.sessions.viewer(token:))
                if let sessionId = GlobalID.decode(id, type: "_Session") {
                    guard let caller else { throw .objectNotFound }
                    return .value(SessionView(session: try auth.sessions.session(objectId: sessionId, caller: caller), current: sessionId == caller.session.objectId))
                }
                return .value(try auth.accounts.user(id: id, caller: caller, request: context.request))
            }
        }

        // Parse's multi-factor challenges: no provider here has one.
        r.field("Mutation.challenge", runs: .pure) { _, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in throw .unsupportedAuthentication }
        }
        for field in ["ChallengePayload.challengeData", "ChallengePayload.clientMutationId"] {
            r.field(field, runs: .pure) { _, _, _, _ in .null }
        }
    }

    /// `ok` (always true) and `clientMutationId` of a payload whose source is an ``OKPayload``.
    static func bindOKPayload(_ r: inout Resolvers<RequestContext>, _ payload: String) {
        r.field("\(payload).ok", on: OKPayload.self, runs: .pure) { _, _, _, _ in .bool(true) }
        r.field("\(payload).clientMutationId", \OKPayload.clientMutationId)
    }

    /// `UpdateUserFieldsInput` as the domain's `UserChanges` (null fields count as absent, but a
    /// null profile field clears it).
    static func userChanges(_ value: JSON?, _ userFields: UserFields) -> UserChanges {
        guard case .object(let fields)? = value else { return UserChanges() }
        var changes = UserChanges(
            username: fields["username"]?.stringValue, email: fields["email"]?.stringValue,
            password: fields["password"]?.stringValue, emailVerified: fields["emailVerified"]?.boolValue,
            authData: fields["authData"]?.objectValue ?? [:], profile: profile(fields, userFields))
        if case .object(let acl)? = fields["ACL"] { changes.acl = Self.acl(acl) }
        return changes
    }
}
