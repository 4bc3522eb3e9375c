import Foundation
import GraphQL
import Testing

/// Our versions of Parse Server's own tests of these four operations
/// (spec/ParseGraphQLServer.spec.js, "Users Queries" and "Users Mutations"), asserting
/// what they assert — with the contract's deliberate differences noted where they apply.
@Suite struct ParsePortTests {
    /// "should return current logged user": viewer gives the user's id, username and email.
    @Test func shouldReturnCurrentLoggedUser() throws {
        let h = try Harness()
        let viewer = try h.signedUp("user1", email: "user1@user1.user1")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let result = h.graphql(
            "query GetCurrentUser { viewer { user { id username email } } }", token: token)
        #expect(result.errors.isEmpty)
        let user = try #require(result.data?["viewer"]?["user"])
        #expect(user["id"] == viewer["user"]?["id"])
        #expect(user["username"] == "user1")
        #expect(user["email"] == "user1@user1.user1")
    }

    /// "should sign user up": the payload has clientMutationId and viewer, a string
    /// session token, the user's fields, and authDataResponse (null without providers).
    @Test func shouldSignUserUp() throws {
        let h = try Harness()
        let clientMutationId = UUID().uuidString
        let result = h.graphql(
            """
            mutation SignUp($input: SignUpInput!) {
              signUp(input: $input) { clientMutationId viewer { sessionToken user { username authDataResponse } } }
            }
            """,
            variables: ["input": ["clientMutationId": .string(clientMutationId), "fields": ["username": "user1", "password": "user1-password"]]])
        #expect(result.errors.isEmpty, "\(result.json)")
        let payload = try #require(result.data?["signUp"])
        #expect(payload.objectValue?.keys.sorted() == ["clientMutationId", "viewer"])
        #expect(payload["clientMutationId"]?.stringValue == clientMutationId)
        #expect(payload["viewer"]?["sessionToken"]?.stringValue?.isEmpty == false)
        #expect(payload["viewer"]?["user"]?["username"] == "user1")
        #expect(payload["viewer"]?["user"]?["authDataResponse"] == .null)
    }

    /// "should log the user in": after signing up and out, logIn returns the
    /// clientMutationId, a string session token and the user.
    @Test func shouldLogTheUserIn() throws {
        let h = try Harness()
        let first = try #require(try h.signedUp("user1", password: "user1-password")["sessionToken"]?.stringValue)
        #expect(h.logOut(token: first).errors.isEmpty)
        let clientMutationId = UUID().uuidString
        let result = h.logIn("user1", "user1-password", clientMutationId: clientMutationId)
        #expect(result.errors.isEmpty)
        #expect(result.data?["logIn"]?["clientMutationId"]?.stringValue == clientMutationId)
        let token = try #require(result.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(token != first)
        #expect(result.data?["logIn"]?["viewer"]?["user"]?["username"] == "user1")
    }

    /// "should log the user out": logOut answers ok with the clientMutationId, and the
    /// token no longer works. Parse answers that later request with HTTP 400
    /// `{code: 209, error: "Invalid session token"}`; the contract does better: only the
    /// field that needs a session fails, with error 209.
    @Test func shouldLogTheUserOut() throws {
        let h = try Harness()
        _ = try h.signedUp("user1", password: "user1-password")
        let token = try h.loggedIn("user1", "user1-password")
        let clientMutationId = UUID().uuidString
        let logOut = h.logOut(token: token, clientMutationId: clientMutationId)
        #expect(logOut.data?["logOut"]?["clientMutationId"]?.stringValue == clientMutationId)
        #expect(logOut.data?["logOut"]?["ok"] == true)
        let after = h.graphql("query GetCurrentUser { viewer { user { username } } health }", token: token)
        #expect(after.errors.map(\.message) == ["Invalid session token"])
        #expect(after.errors.first?.extensions?["code"] == 209)
        #expect(after.data?["health"] == nil, "viewer is non-null, so the whole data is null")
    }

    /// ParseUser.spec "user login with bad password" / "cannot log in with a wrong
    /// password": 101 Invalid username/password., for both a wrong password and an unknown user.
    @Test func badPasswordAndUnknownUser() throws {
        let h = try Harness()
        _ = try h.signedUp("asdf", password: "zxcv-zxcv")
        for (name, password) in [("asdf", "bad password"), ("nobody", "zxcv-zxcv")] {
            let result = h.logIn(name, password)
            #expect(result.errors.map(\.message) == ["Invalid username/password."])
            #expect(result.errors.first?.extensions?["code"] == 101)
        }
    }

    /// ParseUser.spec "signup with duplicate username" / "email": 202 and 203.
    @Test func duplicatesAreRefused() throws {
        let h = try Harness()
        _ = try h.signedUp("dup", email: "dup@example.com")
        let username = h.signUp(["username": "dup", "password": .string(Harness.password)])
        #expect(username.errors.first?.extensions?["code"] == 202)
        let email = h.signUp(["username": "other", "password": .string(Harness.password), "email": "dup@example.com"])
        #expect(email.errors.first?.extensions?["code"] == 203)
    }

    /// ParseUser.spec "user get session from token on signup/login": viewer's
    /// sessionToken is the token the request carried.
    @Test func viewerEchoesTheSessionToken() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("user1")["sessionToken"]?.stringValue)
        #expect(h.viewer(token: token).data?["viewer"]?["sessionToken"]?.stringValue == token)
    }
}
