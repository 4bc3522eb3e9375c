import Auth
import GraphQL

/// Parse 3.7's `users` mutation namespace, for apps whose documents were generated against it:
/// `users { signUp(fields:) logIn(username:password:) logOut }`. Each runs what
/// `Mutation.signUp`, `logIn` and `logOut` run (``signUp(fields:_:_:)``,
/// ``logIn(username:password:authData:_:_:)``, ``logOut(_:_:)``), so checks, errors, limits and
/// mail are the same; only the answer takes Parse 3.7's types (`SignUpResult`, `Me`, `Boolean`).
extension AuthGraphQL {
    /// The source of `UsersMutation`: the namespace holds nothing of its own.
    struct UsersNamespace: Sendable {}

    static func bindParse37Users(
        _ r: inout Resolvers<RequestContext>, auth: AuthService, userFields: UserFields, log: @escaping @Sendable (String) -> Void
    ) {
        r.field("Mutation.users", runs: .pure) { _, _, _, _ in .value(UsersNamespace()) }
        r.field("UsersMutation.signUp") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .value(try signUp(fields: arguments["fields"], userFields, context, auth))
            }
        }
        r.field("UsersMutation.logIn") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .value(try logIn(
                    username: arguments["username"]?.stringValue ?? "", password: arguments["password"]?.stringValue ?? "",
                    authData: [:], context, auth))
            }
        }
        r.field("UsersMutation.logOut") { _, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                try logOut(context, auth)
                return .bool(true)
            }
        }

        r.field("SignUpResult.objectId", \SessionGrant.user.objectId)
        r.field("SignUpResult.createdAt", value: \SessionGrant.user.createdAt)
        r.field("SignUpResult.sessionToken", \SessionGrant.sessionToken)

        // `Me` is a user with its session token: `User`'s resolvers serve the user's fields, so a
        // field both types declare is bound once.
        r.bind(SessionGrant.self, to: "Me")
        r.field("Me.sessionToken", \SessionGrant.sessionToken)
        r.resolve("Me", like: "User") { source in
            guard case .value(let grant as SessionGrant) = source else {
                throw GraphQLError("Resolver for Me expected a parent of type SessionGrant.")
            }
            return .value(grant.user)
        }
    }
}
