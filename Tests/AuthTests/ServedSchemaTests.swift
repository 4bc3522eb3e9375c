import AuthGraphQL
import Foundation
import GraphQL
import Testing
import TestSupport

/// The served schema: health, introspection, and the embedded copy of `schema.graphql`.
@Suite struct ServedSchemaTests {
    @Test(arguments: [nil, "r:0123456789abcdef0123456789abcdef"] as [String?])
    func health(_ token: String?) throws {
        let h = try Harness()
        let result = h.graphql("query { health }", token: token)
        #expect(result.errors.isEmpty)
        #expect(result.json.serializedString() == #"{"data":{"health":true}}"#)
    }

    /// graphql-js's `getIntrospectionQuery()` (descriptions, repeatable directives, specifiedByURL).
    static let introspectionQuery = """
        query IntrospectionQuery {
          __schema {
            queryType { name }
            mutationType { name }
            subscriptionType { name }
            types { ...FullType }
            directives { name description isRepeatable locations args { ...InputValue } }
          }
        }
        fragment FullType on __Type {
          kind name description specifiedByURL
          fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
          inputFields { ...InputValue }
          interfaces { ...TypeRef }
          enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
          possibleTypes { ...TypeRef }
        }
        fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
        fragment TypeRef on __Type {
          kind name
          ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
        }
        """

    @Test func fullIntrospection() throws {
        let h = try Harness()
        let result = h.graphql(Self.introspectionQuery, operationName: "IntrospectionQuery")
        #expect(result.errors.isEmpty, "\(result.errors)")
        let schema = try #require(result.data?["__schema"])
        #expect(schema["queryType"] == ["name": "Query"])
        #expect(schema["mutationType"] == ["name": "Mutation"])
        let types = try #require(schema["types"]?.arrayValue)
        let names = Set(types.compactMap { $0["name"]?.stringValue })
        for name in ["Query", "Mutation", "User", "Viewer", "ACL", "SignUpInput", "LogInInput", "LogOutPayload", "Date", "Object", "Node", "ParseObject"] {
            #expect(names.contains(name), "\(name)")
        }
        let mutation = try #require(types.first { $0["name"] == "Mutation" })
        #expect(Set(mutation["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == [
            "signUp", "logIn", "logOut", "logInWith", "resetPassword", "confirmResetPassword", "sendVerificationEmail",
            "challenge", "updateUser", "deleteUser", "verifyEmail", "revokeSession", "revokeOtherSessions",
            "passkeyRegistrationOptions", "registerPasskey", "passkeyLoginOptions", "logInWithPasskey", "removePasskey",
            "users", "revokeAuthorizedApp", "disableUser", "enableUser", "revokeUserSessions", "logInAs", "retryWebhookDelivery",
        ])
        let user = try #require(types.first { $0["name"] == "User" })
        #expect(Set(user["interfaces"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == ["ParseObject", "Node"])
        #expect(!(user["fields"]?.arrayValue?.contains { $0["name"] == "password" } ?? true))
    }

    /// Parse 3.7's types repeat the API's own: `Me` is `User` with the session token (its fields
    /// are resolved by `User`'s), and `_UserSignUpFields` is read as `CreateUserFieldsInput`, so a
    /// field added to `User` or `CreateUserFieldsInput` must be added to its Parse 3.7 twin too.
    @Test func parse37TypesRepeatTheAPIsOwn() throws {
        let schema = try AuthGraphQL.schema()
        guard case .object(let user)? = schema.type("User"), case .object(let me)? = schema.type("Me"),
            case .inputObject(let create)? = schema.type("CreateUserFieldsInput"),
            case .inputObject(let legacy)? = schema.type("_UserSignUpFields")
        else {
            Issue.record("User, Me, CreateUserFieldsInput or _UserSignUpFields is missing")
            return
        }
        #expect(me.fields.map(\.name) == user.fields.map(\.name) + ["sessionToken"])
        for field in user.fields {
            #expect(me.field(field.name)?.type == field.type, "Me.\(field.name)")
        }
        for field in legacy.fields {
            let own = create.fields.first { $0.name == field.name }
            #expect(own?.type.namedType == field.type.namedType, "_UserSignUpFields.\(field.name)")
        }
        #expect(Set(legacy.fields.map(\.name)) == Set(create.fields.map(\.name)).subtracting(["emailVerified", "authData"]))
    }

    /// `ServedSchema.sdl` is compiled from `schema.graphql` by the EmbedText build plugin:
    /// the served schema is the file, to the byte.
    @Test func embeddedSchemaMatchesTheRepository() throws {
        let file = try String(contentsOf: packageRoot.appendingPathComponent("schema.graphql"), encoding: .utf8)
        #expect(ServedSchema.sdl == file)
        #expect(ServedSchema.sdl.contains("type Mutation"))
    }

    /// `schema.graphql` is kept as `printSchema` writes it (graphql-js's printed form), ending
    /// with one new line: `gatehouse schema print` reproduces it and a diff of it shows only
    /// real changes.
    @Test func schemaIsInPrintedForm() throws {
        #expect(printSchema(try GraphQLSchema.build(sdl: ServedSchema.sdl)) + "\n" == ServedSchema.sdl)
    }
}
