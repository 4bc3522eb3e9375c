@testable import GatehouseServer
import Foundation
import JSON
import ServerTestSupport
import TestSupport
import Testing

/// The operators' surface over HTTP: the console page and its switch, the read-only key, and a
/// disabled user's sessions ending on a second instance sharing the database.
@Suite struct OperatorsLiveTests {
    static let masterKey = "live-master-key-0123456789"
    static let readOnlyKey = "live-read-only-key-0123456789"

    @Test func theConsoleRunsUnderAStrictPolicyOfItsOwn() throws {
        let pages = Pages(appId: "app", appName: "Acme")
        let admin = try #require(pages.admin)
        try PagesTests.expectInlineCodeAllowed(admin, "admin")
        let policy = PagesTests.directives(try #require(admin.headers["Content-Security-Policy"]))
        #expect(policy["frame-ancestors"] == "'none'")
        #expect(policy["connect-src"] == "'self'")
        #expect(policy["img-src"] == "'self' data:")
        #expect(policy["form-action"] == "'none'")
        #expect(admin.headers["Cache-Control"] == "no-store")
        #expect(admin.headers["X-Frame-Options"] == "DENY")
        let html = String(decoding: admin.body, as: UTF8.self)
        #expect(html.contains("Acme operators"))
        // Nothing from elsewhere, and the key never in a URL or in storage that outlives the tab.
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http"))
        #expect(html.contains("sessionStorage") && !html.contains("localStorage"))
        #expect(Pages(adminConsole: false).admin == nil)
    }

    @Test func theReadOnlyKeyMustDifferFromTheMasterKey() throws {
        do {
            _ = try Settings.parse(arguments: [], environment: ["GATEHOUSE_MASTER_KEY": "same", "GATEHOUSE_READ_ONLY_MASTER_KEY": "same"])
            Issue.record("the same key for both was accepted")
        } catch {
            #expect("\(error)".contains("GATEHOUSE_READ_ONLY_MASTER_KEY must differ from GATEHOUSE_MASTER_KEY"))
        }
    }

    @Test func theConsoleIsServedUnlessSwitchedOff() throws {
        let on = try LiveServer()
        let page = try on.get("/admin", headers: [("Accept", "text/html")])
        #expect(page.status == 200)
        #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        let off = try LiveServer { $0.adminConsole = false }
        #expect(try off.get("/admin").status == 404)
    }

    @Test func readOnlyKeyReadsAndIsRefusedMutations() throws {
        let live = try LiveServer {
            $0.masterKey = Self.masterKey
            $0.readOnlyMasterKey = Self.readOnlyKey
        }
        _ = try live.graphQL(Documents.signUp, variables: Documents.credentials("alice", "larch-ridge-11"))
        let read = try live.graphQL("{ users { count } }", headers: [("X-Parse-Master-Key", Self.readOnlyKey)]).json()
        #expect(read.at("data", "users", "count") == 1, "\(read)")
        let refused = try live.graphQL(
            Documents.signUp, variables: Documents.credentials("bob", "larch-ridge-11"), headers: [("X-Parse-Master-Key", Self.readOnlyKey)]
        ).json()
        #expect(refused["errors"]?[0]?.at("extensions", "code") == 119)
        #expect(refused["errors"]?[0]?["message"] == "Permission denied: read-only master key.")
        let none = try live.graphQL("{ users { count } }").json()
        #expect(none["errors"]?[0]?["message"] == "Permission denied: master key required.")
    }

    @Test func disablingEndsTheSessionsOnEveryInstance() throws {
        let a = try LiveServer { $0.masterKey = Self.masterKey }
        let database = a.server.settings.databaseURL
        let b = try LiveServer {
            $0.databaseURL = database
            $0.masterKey = Self.masterKey
        }
        let signUp = try a.graphQL(Documents.signUp, variables: Documents.credentials("alice", "larch-ridge-11")).json()
        let token = try #require(signUp.at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(signUp)")
        let id = try #require(try a.graphQL("{ viewer { user { objectId } } }", headers: [("X-Parse-Session-Token", token)])
            .json().at("data", "viewer", "user", "objectId")?.stringValue)
        // Both instances have the session cached.
        for live in [a, b] { #expect(try SessionsLiveTests.viewerError(live, token) == nil) }
        let disabled = try a.graphQL(
            "mutation D($id: ID!) { disableUser(input: {id: $id, reason: \"abuse\"}) { user { disabled } } }", variables: ["id": .string(id)],
            headers: [("X-Parse-Master-Key", Self.masterKey)]).json()
        #expect(disabled.at("data", "disableUser", "user", "disabled") == true, "\(disabled)")
        #expect(try SessionsLiveTests.viewerError(a, token) == 209)
        #expect(try eventually { try SessionsLiveTests.viewerError(b, token) == 209 })
        let logIn = try b.graphQL(Documents.logIn, variables: Documents.credentials("alice", "larch-ridge-11")).json()
        #expect(logIn["errors"]?[0]?["message"] == "This account has been disabled.")
    }
}
