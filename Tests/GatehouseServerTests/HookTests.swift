import Foundation
import GatehouseServer
import JSON
import ServerTestSupport
import TestSupport
import Testing

/// `beforeSignUp` and `beforeLogIn` against a receiver that verifies each call with the Standard
/// Webhooks reference library (``WebhookReceiver``).
@Suite struct HookTests {
    static func hooks(_ receiver: WebhookReceiver, timeoutMs: Int = 2000, onError: String = "reject") -> String {
        let entry = { (path: String) in
            #"{"url": "\#(receiver.url(path))", "secret": "\#(WebhookTests.secret)", "timeoutMs": \#(timeoutMs), "onError": "\#(onError)"}"#
        }
        return #"{"beforeSignUp": \#(entry("/signup")), "beforeLogIn": \#(entry("/login"))}"#
    }

    static func server(_ receiver: WebhookReceiver, timeoutMs: Int = 2000, onError: String = "reject") throws -> LiveServer {
        try LiveServer { $0.hooks = hooks(receiver, timeoutMs: timeoutMs, onError: onError) }
    }

    static func signUp(_ live: LiveServer, _ username: String, _ password: String = "correct horse 1") throws -> JSON {
        var variables = Documents.credentials(username, password)
        variables["email"] = "ann@example.com"
        return try live.graphQL(WebhookTests.signUp, variables: variables).json()
    }

    static func error(_ json: JSON) -> (code: JSON?, message: JSON?) {
        (json["errors"]?[0]?.at("extensions", "code"), json["errors"]?[0]?["message"])
    }

    @Test func anAllowingHookSeesTheSignUpAndTheLogInSignedAndWithoutThePassword() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        let live = try Self.server(receiver)
        let signedUp = try Self.signUp(live, "ann")
        #expect(signedUp.at("data", "signUp", "viewer", "sessionToken")?.stringValue != nil, "\(signedUp)")
        let loggedIn = try live.graphQL(Documents.logIn, variables: Documents.credentials("ann", "correct horse 1")).json()
        #expect(loggedIn.at("data", "logIn", "viewer", "sessionToken")?.stringValue != nil, "\(loggedIn)")
        let signUp = try #require(receiver.requests(on: "/signup").first)
        #expect(signUp.verified && signUp.type == "before.sign_up", "\(signUp.error)")
        #expect(signUp.data["username"] == "ann" && signUp.data["email"] == "ann@example.com" && signUp.data["authProvider"] == "password")
        #expect(signUp.data["ip"] == "127.0.0.1")
        let logIn = try #require(receiver.requests(on: "/login").first)
        #expect(logIn.verified && logIn.type == "before.log_in")
        #expect(logIn.data["userId"] == signedUp.at("data", "signUp", "viewer", "user", "objectId"))
        #expect(logIn.data["factors"] == .array(["password"]) && logIn.data["username"] == "ann")
        for request in receiver.requests() { #expect(!request.line.contains("correct horse 1")) }
    }

    @Test func aRefusalFailsWith141AndItsCleanedMessageCreatingNothing() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        let message = "No sign-ups from\u{7} this domain.\n" + String(repeating: "x", count: 300)
        try receiver.answer("/signup", with: [["status": 200, "body": .string(JSON.object(["allow": false, "message": .string(message)]).serializedString())]])
        let live = try Self.server(receiver)
        let refused = Self.error(try Self.signUp(live, "ann"))
        #expect(refused.code == 141)
        let shown = try #require(refused.message?.stringValue)
        #expect(shown.hasPrefix("No sign-ups from this domain.xxx") && shown.count == 200, "\(shown)")
        // Nothing was created: the name is free.
        #expect(try Self.signUp(live, "ann").at("data", "signUp", "viewer", "sessionToken")?.stringValue != nil)
    }

    @Test func anAnswerThatIsNotJSONIsAnError() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        try receiver.answer("/signup", with: [["status": 200, "body": "not json"]])
        let live = try Self.server(receiver)
        let refused = Self.error(try Self.signUp(live, "ann"))
        #expect(refused.code == 141 && refused.message == "Sign-up is unavailable, try again later.")
    }

    @Test func aTimeoutRejectsOrAllowsAsOnErrorSays() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        try receiver.answer("/login", with: [["delay": 5, "status": 200, "body": #"{"allow": true}"#]])
        let rejecting = try Self.server(receiver, timeoutMs: 200)
        #expect(try Self.signUp(rejecting, "ann").at("data", "signUp") != .null)
        let refused = Self.error(try rejecting.graphQL(Documents.logIn, variables: Documents.credentials("ann", "correct horse 1")).json())
        #expect(refused.code == 141 && refused.message == "Log-in is unavailable, try again later.")

        let other = try WebhookReceiver(secret: WebhookTests.secret)
        try other.answer("/signup", with: [["delay": 5, "status": 200, "body": #"{"allow": false, "message": "late"}"#]])
        let allowing = try Self.server(other, timeoutMs: 200, onError: "allow")
        #expect(try Self.signUp(allowing, "bob").at("data", "signUp", "viewer", "sessionToken")?.stringValue != nil)
    }

    /// Never an oracle: no call after a wrong password, nor for a sign-up whose input fails first.
    @Test func notCalledAfterAWrongPasswordNorForAnInvalidSignUp() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        let live = try Self.server(receiver)
        _ = try Self.signUp(live, "ann")
        let wrong = Self.error(try live.graphQL(Documents.logIn, variables: Documents.credentials("ann", "wrong password 9")).json())
        #expect(wrong.code == 101)
        let weak = Self.error(try Self.signUp(live, "bob", "short"))
        #expect(weak.code == 142)
        let taken = Self.error(try Self.signUp(live, "ann"))
        #expect(taken.code == 202)
        // A call that happened would be recorded before the answer reached the client.
        #expect(receiver.requests(on: "/login").isEmpty)
        #expect(receiver.requests(on: "/signup").count == 1)
    }
}
