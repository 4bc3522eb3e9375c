import Foundation
import JSON
import ServerTestSupport
import Testing
import TestSupport

/// Parse 3.7's `users` mutation namespace over HTTP, as an app generated against Parse 3.7's
/// schema sends it (Apollo iOS, with the app id): its documents answer in its shapes, and each
/// operation behaves as `signUp`, `logIn` and `logOut`, whose tokens it shares.
@Suite struct Parse37UsersTests {
    /// The documents of Parse 3.7's user mutations, verbatim.
    enum Parse37 {
        static let signUp = """
            mutation SignUp($username: String!, $password: String!, $email: String) {
              users { signUp(fields: {username: $username, password: $password, email: $email}) { objectId createdAt sessionToken } }
            }
            """
        static let logIn = """
            mutation LogInUser($username: String!, $password: String!) {
              users { logIn(username: $username, password: $password) { sessionToken objectId username email } }
            }
            """
        static let logOut = "mutation LogOutUser { users { logOut } }"
    }

    static let appId = "parse37-app"

    /// A server that requires an app id, as Parse 3.7 apps are configured for.
    static func server() throws -> LiveServer { try LiveServer { $0.appId = appId } }

    /// One request with the app id and, when given, a session token.
    static func send(
        _ live: LiveServer, _ query: String, _ variables: JSONObject = [:], token: String? = nil
    ) throws -> JSON {
        var headers = [("X-Parse-Application-Id", appId)]
        if let token { headers.append(("X-Parse-Session-Token", token)) }
        let response = try live.graphQL(query, variables: variables, headers: headers)
        #expect(response.status == 200, "\(response.text)")
        return try response.json()
    }

    /// The first error's code and message.
    static func failure(_ answer: JSON) -> (Int?, String?) {
        (answer["errors"]?[0]?.at("extensions", "code")?.intValue, answer["errors"]?[0]?["message"]?.stringValue)
    }

    @Test func signUpLogInAndLogOutInParse37sShapes() throws {
        let live = try Self.server()
        let signedUp = try Self.send(live, Parse37.signUp, [
            "username": "iris", "password": "correct horse", "email": "iris@example.com",
        ])
        #expect(signedUp["errors"] == nil, "\(signedUp)")
        let result = try #require(signedUp.at("data", "users", "signUp")?.objectValue)
        #expect(Array(result.keys) == ["objectId", "createdAt", "sessionToken"])
        let objectId = try #require(result["objectId"]?.stringValue)
        #expect(objectId.count == 10)
        #expect(result["createdAt"]?.stringValue?.hasSuffix("Z") == true)
        let signUpToken = try #require(result["sessionToken"]?.stringValue)
        #expect(signUpToken.hasPrefix("r:") && signUpToken.count == 34)

        let loggedIn = try Self.send(live, Parse37.logIn, Documents.credentials("iris", "correct horse"))
        #expect(loggedIn["errors"] == nil, "\(loggedIn)")
        let me = try #require(loggedIn.at("data", "users", "logIn"))
        let token = try #require(me["sessionToken"]?.stringValue)
        #expect(token.hasPrefix("r:") && token != signUpToken)
        #expect(me == ["sessionToken": .string(token), "objectId": .string(objectId), "username": "iris", "email": "iris@example.com"])

        let loggedOut = try Self.send(live, Parse37.logOut, token: token)
        #expect(loggedOut == ["data": ["users": ["logOut": true]]])
        // That session is over; the sign-up's is not.
        #expect(Self.failure(try Self.send(live, Documents.viewer, token: token)) == (209, "Invalid session token"))
        #expect(try Self.send(live, Documents.viewer, token: signUpToken).at("data", "viewer", "user", "username") == "iris")
    }

    /// `Me` has the user's fields, resolved as `User`'s (the database-reading `authData` too).
    @Test func meHasTheUsersFields() throws {
        let live = try Self.server()
        _ = try Self.send(live, Parse37.signUp, Documents.credentials("milo", "correct horse"))
        let answer = try Self.send(live, """
            mutation { users { logIn(username: "milo", password: "correct horse") {
              id objectId updatedAt emailVerified authData authDataResponse ACL { users { userId read write } public { read } }
              __typename } } }
            """)
        #expect(answer["errors"] == nil, "\(answer)")
        let me = try #require(answer.at("data", "users", "logIn"))
        let objectId = try #require(me["objectId"]?.stringValue)
        let id = Data(base64Encoded: me["id"]?.stringValue ?? "").map { String(decoding: $0, as: UTF8.self) }
        #expect(id == "_User:\(objectId)")
        #expect(me["emailVerified"] == false && me["authData"] == .null && me["authDataResponse"] == .null)
        #expect(me["ACL"] == ["users": [["userId": me["id"]!, "read": true, "write": true]], "public": .null])
        #expect(me["__typename"] == "Me")
    }

    /// Each refusal through the namespace is the one `signUp(input:)` or `logIn(input:)` gives the
    /// same input: the same code and message.
    @Test(arguments: [
        ("wrong password", 101, "Invalid username/password."),
        ("taken username", 202, "Account already exists for this username."),
        ("empty password", 201, "password is required"),
        ("common password", 142, "Password is too common."),
    ])
    func refusalsAreThoseOfSignUpAndLogIn(_ refusal: String, code: Int, message: String) throws {
        let live = try Self.server()
        _ = try Self.send(live, Documents.signUp, Documents.credentials("wanda", "correct horse"))
        let (parse37, current): (JSON, JSON)
        switch refusal {
        case "wrong password":
            parse37 = try Self.send(live, Parse37.logIn, Documents.credentials("wanda", "wrong horse"))
            current = try Self.send(live, Documents.logIn, Documents.credentials("wanda", "wrong horse"))
        case "taken username":
            parse37 = try Self.send(live, Parse37.signUp, Documents.credentials("Wanda", "another horse"))
            current = try Self.send(live, Documents.signUp, Documents.credentials("Wanda", "another horse"))
        case "empty password":
            parse37 = try Self.send(live, Parse37.signUp, Documents.credentials("xavier", ""))
            current = try Self.send(live, Documents.signUp, Documents.credentials("xavier", ""))
        default:
            parse37 = try Self.send(live, Parse37.signUp, Documents.credentials("xavier", "password123"))
            current = try Self.send(live, Documents.signUp, Documents.credentials("xavier", "password123"))
        }
        #expect(Self.failure(parse37) == (code, message), "\(parse37)")
        #expect(Self.failure(current) == (code, message), "\(current)")
        // The non-null result nulls the namespace, as in Parse 3.7.
        #expect(parse37["data"] == ["users": .null])
        #expect(parse37["errors"]?[0]?["path"]?.arrayValue?.first == "users")
    }

    @Test func tokensWorkAcrossBothShapes() throws {
        let live = try Self.server()
        _ = try Self.send(live, Documents.signUp, Documents.credentials("tomas", "correct horse"))

        // A token from users { logIn } is a session as any other: viewer accepts it.
        let parse37Token = try #require(try Self.send(live, Parse37.logIn, Documents.credentials("tomas", "correct horse"))
            .at("data", "users", "logIn", "sessionToken")?.stringValue)
        #expect(try Self.send(live, Documents.viewer, token: parse37Token).at("data", "viewer", "user", "username") == "tomas")

        // A token from logIn is ended by users { logOut }.
        let token = try #require(try Self.send(live, Documents.logIn, Documents.credentials("tomas", "correct horse"))
            .at("data", "logIn", "viewer", "sessionToken")?.stringValue)
        #expect(try Self.send(live, Parse37.logOut, token: token) == ["data": ["users": ["logOut": true]]])
        #expect(Self.failure(try Self.send(live, Documents.viewer, token: token)) == (209, "Invalid session token"))
        #expect(try Self.send(live, Documents.viewer, token: parse37Token).at("data", "viewer", "user", "username") == "tomas")
    }

    /// Without a session, and with one already ended, `users { logOut }` does nothing and
    /// answers true, as `logOut`.
    @Test func logOutWithoutASessionAnswersTrue() throws {
        let live = try Self.server()
        #expect(try Self.send(live, Parse37.logOut) == ["data": ["users": ["logOut": true]]])
        let ended = "r:" + String(repeating: "0", count: 32)
        #expect(try Self.send(live, Parse37.logOut, token: ended) == ["data": ["users": ["logOut": true]]])
    }
}
