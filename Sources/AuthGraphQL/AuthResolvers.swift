import Auth
import Foundation
import GraphQL
import JSON

/// Binds `schema.graphql` to the auth domain: the resolvers of every field, the
/// contract's scalars, and Parse's error codes and messages.
public enum AuthGraphQL {
    /// The served schema, built from the contract SDL with the `Date` and `Object` scalars, and
    /// extended with the fields the app declares (`userFields`, read against the schema without them).
    public static func schema(sdl: String = ServedSchema.sdl, userFields: UserFieldsFile? = nil) throws(SchemaError) -> GraphQLSchema {
        let extensionSDL = userFields?.extensionSDL ?? ""
        return try GraphQLSchema.build(
            sdl: extensionSDL.isEmpty ? sdl : sdl + "\n" + extensionSDL, sourceName: "schema.graphql", scalars: ContractScalars.all)
    }

    /// The executable schema over `auth`. `log` receives internal error details.
    public static func executableSchema(
        auth: AuthService, schema: GraphQLSchema, log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(SchemaError) -> ExecutableSchema<RequestContext> {
        var r = Resolvers<RequestContext>()
        r.bind(User.self, to: "User")
        let userFields = auth.core.configuration.userFields

        r.field("Query.health", runs: .pure) { _, _, _, _ in .bool(true) }
        // The viewer is settled before execution (the transport looks the session up first).
        r.field("Query.viewer", runs: .pureOnceSettled) { _, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let grant = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                return .value(grant)
            }
        }
        r.field("Mutation.signUp") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let grant = try signUp(fields: input["fields"], userFields, context, auth)
                return .value(Payload(viewer: grant, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.logIn") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let grant = try logIn(
                    username: input["username"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
                    authData: input["authData"]?.objectValue ?? [:], context, auth)
                return .value(Payload(viewer: grant, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.logOut") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                try logOut(context, auth)
                return .value(LogOutPayload(clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }

        r.field("Mutation.logInWith") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let grant = try auth.providers.logInWith(
                    authData: input["authData"]?.objectValue ?? [:], fields: try signUpFields(input["fields"], userFields),
                    request: context.request)
                return .value(Payload(viewer: grant, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }

        for payload in ["SignUpPayload", "LogInPayload", "LogInWithPayload", "LogInWithPasskeyPayload"] {
            r.field("\(payload).viewer", value: \Payload.viewer)
            r.field("\(payload).clientMutationId", \Payload.clientMutationId)
        }
        r.field("LogOutPayload.ok", on: LogOutPayload.self, runs: .pure) { _, _, _, _ in .bool(true) }
        r.field("LogOutPayload.clientMutationId", \LogOutPayload.clientMutationId)

        r.field("Viewer.sessionToken", \SessionGrant.sessionToken)
        r.field("Viewer.user", value: \SessionGrant.user)

        r.field("User.id", \User.globalId)
        r.field("User.objectId", \User.objectId)
        r.field("User.createdAt", value: \User.createdAt)
        r.field("User.updatedAt", value: \User.updatedAt)
        r.field("User.ACL", on: User.self, runs: .pure) { user, _, _, _ in .json(aclJSON(user.acl)) }
        r.field("User.username", \User.username)
        r.field("User.email", \User.email)
        r.field("User.emailVerified", \User.emailVerified)
        // Every User the API returns is its owner's (or the master key's): no check needed here.
        r.field("User.authData", on: User.self) { user, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                try auth.providers.authData(userId: user.objectId).map { .json(.object($0)) } ?? .null
            }
        }
        r.field("User.authDataResponse", on: User.self, runs: .pure) { user, _, _, _ in user.authDataResponse.map { .json(.object($0)) } ?? .null }
        // The profile reads the user already loaded (the cached viewer's too): pure. Neither key
        // paths nor the engine's `on:` bindings: both run generic code (the parent's cast,
        // `Optional`'s conversion) that looks type metadata up on every call.
        r.field("User.displayName", runs: .pure) { source, _, _, _ in
            try Self.user(source, "displayName").displayName.map(ResolvedValue.string) ?? .null
        }
        r.field("User.photoURL", runs: .pure) { source, _, _, _ in
            try Self.user(source, "photoURL").photoURL.map(ResolvedValue.string) ?? .null
        }
        for field in userFields.declared {
            r.field("User.\(field.name)", runs: .pure) { source, _, context, _ in
                field.value(of: try Self.user(source, field.name), isMaster: context.request.readsAsMaster).map(ResolvedValue.init) ?? .null
            }
        }

        bindAccounts(&r, auth: auth, userFields: userFields, log: log)
        bindSessions(&r, auth: auth, log: log)
        bindPasskeys(&r, auth: auth, log: log)
        bindParse37Users(&r, auth: auth, userFields: userFields, log: log)
        bindTokens(&r, auth: auth, log: log)
        bindOperators(&r, auth: auth, log: log)
        bindAudit(&r, auth: auth, log: log)
        // Last: every mutation bound above, made with a master key, leaves an `admin.action` entry.
        recordAdminActions(&r, auth: auth)

        for type in ["ACL", "UserACL", "RoleACL", "PublicACL"] { r.resolveFromJSON(type) }
        // The read-only master key reads only: every root field of a mutation refuses it before
        // it runs, whichever feature bound it.
        for field in schema.mutationType?.fields ?? [] {
            r.wrap("Mutation.\(field.name)") { resolver in
                { source, arguments, context, info in
                    if context.request.masterKey == .readOnly {
                        return try run(context, log) { () throws(AuthError) -> ResolvedValue in throw .readOnlyMasterKey }
                    }
                    return try resolver(source, arguments, context, info)
                }
            }
        }
        return try ExecutableSchema(schema: schema, resolvers: r) { error in
            log("unexpected resolver error: \(error)")
            return GraphQLError("Internal server error", extensions: ["code": .int(1)])
        }
    }

    /// The `User` parent of the field `name`: the value's type compared with `User` first
    /// (`exactlyUser`), before the runtime's general cast (`as?`), which unwraps the existential
    /// and weighs every kind of conversion; every `User` field reads its parent.
    @inline(__always)
    static func user(_ source: ResolvedValue, _ name: String) throws(GraphQLError) -> User {
        if case .value(let value) = source, let user = _openExistential(value, do: exactlyUser) ?? value as? User {
            return user
        }
        throw GraphQLError("Resolver for User.\(name) expected a parent of type User.")
    }

    // MARK: Sources

    struct Payload: Sendable {
        let viewer: SessionGrant
        let clientMutationId: String?
    }

    struct LogOutPayload: Sendable {
        let clientMutationId: String?
    }

    static func optional(_ text: String?) -> ResolvedValue {
        text.map(ResolvedValue.string) ?? .null
    }

    /// Runs a domain call as the request's ``AuditOrigin``, turning `AuthError` into the GraphQL
    /// error Parse sends (`extensions.code`) and recording refusals the transport answers with a
    /// status.
    static func run(
        _ context: RequestContext, _ log: @Sendable (String) -> Void, _ body: () throws(AuthError) -> ResolvedValue
    ) throws(GraphQLError) -> ResolvedValue {
        do {
            return try AuditOrigin.bind(context.auditOrigin, body)
        } catch {
            switch error {
            case .rateLimited(let seconds): context.record(.rateLimited(retryAfter: seconds))
            case .busy: context.record(.rateLimited(retryAfter: 1))
            case .databaseUnavailable: context.record(.unavailable(retryAfter: 1))
            case .internalError(let detail): log("internal error: \(detail)")
            default: break
            }
            throw GraphQLError(error.message, extensions: ["code": .int(error.code)])
        }
    }

    // MARK: Operations (every shape of the API that signs up, logs in or out calls these)

    /// Signs up with `CreateUserFieldsInput` or Parse 3.7's `_UserSignUpFields`.
    static func signUp(
        fields: JSON?, _ userFields: UserFields, _ context: RequestContext, _ auth: AuthService
    ) throws(AuthError) -> SessionGrant {
        try auth.sessions.signUp(try signUpFields(fields, userFields), request: context.request)
    }

    /// Logs in with a password; `authData.mfa` is the second factor's code, and any other
    /// provider is unsupported here.
    static func logIn(
        username: String, password: String, authData: JSONObject, _ context: RequestContext, _ auth: AuthService
    ) throws(AuthError) -> SessionGrant {
        var authData = authData
        let mfa = authData["mfa"]
        authData["mfa"] = nil
        return try auth.sessions.logIn(
            username: username, password: password, hasAuthData: !authData.isEmpty, mfa: mfa, request: context.request)
    }

    /// Ends the session of the request's token; without a token it does nothing.
    static func logOut(_ context: RequestContext, _ auth: AuthService) throws(AuthError) {
        try auth.sessions.logOut(token: context.sessionToken)
    }

    // MARK: Input

    static func isNonEmptyObject(_ value: JSON?) -> Bool {
        if case .object(let object)? = value { return !object.isEmpty }
        return false
    }

    /// `CreateUserFieldsInput` (or logInWith's `UserLoginWithInput`, or Parse 3.7's
    /// `_UserSignUpFields`) as the domain's `SignUpFields` (nil when absent or null).
    static func signUpFields(_ value: JSON?, _ userFields: UserFields) throws(AuthError) -> SignUpFields? {
        guard case .object(let fields)? = value else { return nil }
        var result = SignUpFields(
            username: fields["username"]?.stringValue, password: fields["password"]?.stringValue,
            email: fields["email"]?.stringValue, emailVerified: fields["emailVerified"]?.boolValue,
            hasAuthData: isNonEmptyObject(fields["authData"]), profile: profile(fields, userFields))
        if case .object(let acl)? = fields["ACL"] { result.acl = Self.acl(acl) }
        return result
    }

    /// The profile fields of a user fields input as given, by name: `displayName`, `photoURL` and
    /// the declared fields (null kept: it clears).
    static func profile(_ fields: JSONObject, _ userFields: UserFields) -> JSONObject {
        var profile = JSONObject()
        for name in [ProfileChange.displayName, ProfileChange.photoURL] {
            if let value = fields[name] { profile[name] = value }
        }
        for field in userFields.declared {
            if let value = fields[field.name] { profile[field.name] = value }
        }
        return profile
    }

    /// `ACLInput` as an `ACL`; user ids may be global ids or object ids (as Parse).
    static func acl(_ input: JSONObject) -> ACL {
        func access(_ object: JSONObject) -> ACL.Access {
            ACL.Access(read: object["read"]?.boolValue ?? false, write: object["write"]?.boolValue ?? false)
        }
        var acl = ACL()
        for case .object(let entry) in input["users"]?.arrayValue ?? [] {
            guard let id = entry["userId"]?.stringValue else { continue }
            acl.users.append((GlobalID.decode(id, type: "_User") ?? id, access(entry)))
        }
        for case .object(let entry) in input["roles"]?.arrayValue ?? [] {
            guard let name = entry["roleName"]?.stringValue else { continue }
            acl.roles.append((name, access(entry)))
        }
        if case .object(let entry)? = input["public"] { acl.publicAccess = access(entry) }
        return acl
    }

    /// An ACL as the `ACL` type's JSON: global user ids; empty lists as null (as Parse).
    private static func aclJSON(_ acl: ACL) -> JSON {
        func entry(_ key: String, _ id: String, _ access: ACL.Access) -> JSON {
            .object([key: .string(id), "read": .bool(access.read), "write": .bool(access.write)])
        }
        var object = JSONObject()
        object["users"] = acl.users.isEmpty ? .null : .array(acl.users.map { entry("userId", GlobalID.encode(type: "_User", id: $0.userId), $0.access) })
        object["roles"] = acl.roles.isEmpty ? .null : .array(acl.roles.map { entry("roleName", $0.roleName, $0.access) })
        object["public"] = acl.publicAccess.map { .object(["read": .bool($0.read), "write": .bool($0.write)]) } ?? .null
        return .object(object)
    }
}

/// `value` itself when its type is `User` (so its bits are a user's); nil otherwise. Called with
/// the parent's type opened (`_openExistential`), which takes a function rather than a closure
/// (Swift 6.3's compiler fails on a closure there, or in code generic over the type sought):
/// hence a function for the one type, not a generic one in the engine.
private func exactlyUser<Value>(_ value: Value) -> User? {
    guard Value.self == User.self else { return nil }
    return unsafeBitCast(value, to: User.self)
}
