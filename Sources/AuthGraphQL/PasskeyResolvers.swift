import Auth
import Foundation
import GraphQL
import JSON

/// Passkeys: `Viewer.passkeys`, `Passkey`, and the five passkey operations (docs/second-factors.md).
extension AuthGraphQL {
    struct OptionsPayload: Sendable {
        let options: JSON
        let clientMutationId: String?
    }

    struct PasskeyPayload: Sendable {
        let passkey: Passkey
        let clientMutationId: String?
    }

    static func bindPasskeys(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.bind(Passkey.self, to: "Passkey")
        r.field("Viewer.passkeys", on: SessionGrant.self) { grant, _, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.passkeys.passkeys(of: grant).map { .value($0) })
            }
        }
        r.field("Passkey.id", \Passkey.globalId)
        r.field("Passkey.objectId", \Passkey.objectId)
        r.field("Passkey.name", \Passkey.name)
        r.field("Passkey.createdAt", value: \Passkey.createdAt)
        r.field("Passkey.lastUsedAt", value: \Passkey.lastUsedAt)

        r.field("Mutation.passkeyRegistrationOptions") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                let options = try auth.passkeys.passkeyRegistrationOptions(caller: caller, request: context.request)
                return .value(OptionsPayload(options: options, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.registerPasskey") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                let passkey = try auth.passkeys.registerPasskey(
                    credential: input["credential"] ?? .null, name: input["name"]?.stringValue, caller: caller, request: context.request)
                return .value(PasskeyPayload(passkey: passkey, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.passkeyLoginOptions") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let options = try auth.passkeys.passkeyLoginOptions(username: input["username"]?.stringValue, request: context.request)
                return .value(OptionsPayload(options: options, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.logInWithPasskey") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let grant = try auth.passkeys.logInWithPasskey(credential: input["credential"] ?? .null, request: context.request)
                return .value(Payload(viewer: grant, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("Mutation.removePasskey") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                guard let caller = try context.caller(auth.sessions.viewer(token:)) else { throw .invalidSession }
                try auth.passkeys.removePasskey(id: input["id"]?.stringValue ?? "", caller: caller, request: context.request)
                return .value(OKPayload(clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }

        r.field("PasskeyOptionsPayload.options", on: OptionsPayload.self, runs: .pure) { payload, _, _, _ in .json(payload.options) }
        r.field("PasskeyOptionsPayload.clientMutationId", \OptionsPayload.clientMutationId)
        r.field("RegisterPasskeyPayload.passkey", value: \PasskeyPayload.passkey)
        r.field("RegisterPasskeyPayload.clientMutationId", \PasskeyPayload.clientMutationId)
        bindOKPayload(&r, "RemovePasskeyPayload")
    }
}
