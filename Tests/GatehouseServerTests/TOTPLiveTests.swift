import Auth
import OneTimeCodes
import Foundation
import JSON
import Sodium
import Testing
import ServerTestSupport
import TestSupport

@testable import GatehouseServer

/// TOTP over HTTP on two servers sharing one database and `GATEHOUSE_SECRET_KEY`, the key's
/// start-up rules and the embedded default's key file.
@Suite struct TOTPLiveTests {
    static let update = """
        mutation U($id: ID!, $authData: Object) {
          updateUser(input: {id: $id, fields: {authData: $authData}}) { user { authData authDataResponse } }
        }
        """
    static let logIn = """
        mutation L($username: String!, $password: String!, $authData: Object) {
          logIn(input: {username: $username, password: $password, authData: $authData}) {
            viewer { sessionToken user { authData } session { createdWith } }
          }
        }
        """

    static func logIn(_ live: LiveServer, _ token: String?) throws -> JSON {
        var variables: JSONObject = ["username": "alice", "password": "larch-ridge-11"]
        if let token { variables["authData"] = ["mfa": ["token": .string(token)]] }
        return try live.graphQL(Self.logIn, variables: variables).json()
    }

    static func error(_ response: JSON) -> String? {
        guard let error = response["errors"]?[0] else { return nil }
        return "\(error.at("extensions", "code")?.intValue ?? 0) \(error["message"]?.stringValue ?? "")"
    }

    @Test func enrolOnOneInstanceLogInOnTheOther() throws {
        let a = try LiveServer()
        let b = try LiveServer { $0.databaseURL = a.server.settings.databaseURL }
        let signUp = try a.graphQL(Documents.signUp, variables: Documents.credentials("alice", "larch-ridge-11")).json()
        let token = try #require(signUp.at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(signUp)")
        let viewer = try a.graphQL("query { viewer { user { objectId } } }", headers: [("X-Parse-Session-Token", token)]).json()
        let id = try #require(viewer.at("data", "viewer", "user", "objectId")?.stringValue)

        let secret = SecureRandom.bytes(20)
        let totp = TOTP(secret: secret)
        let enrolled = try a.graphQL(
            Self.update, variables: ["id": .string(id), "authData": ["mfa": ["secret": .string(Base32.encode(secret)), "token": .string(totp.code(at: Date()))]]],
            headers: [("X-Parse-Session-Token", token)]).json()
        let codes = try #require(enrolled.at("data", "updateUser", "user", "authDataResponse", "mfa", "recovery")?.arrayValue, "\(enrolled)")
        #expect(codes.count == 10)
        #expect(enrolled.at("data", "updateUser", "user", "authData") == ["mfa": ["status": "enabled"]])

        #expect(Self.error(try Self.logIn(b, nil)) == "-1 Missing additional authData mfa")
        // The next step's code (one step of drift) on B, then its replay on A.
        let next = totp.code(at: Date().addingTimeInterval(30))
        let first = try Self.logIn(b, next)
        #expect(first.at("data", "logIn", "viewer", "session", "createdWith", "factors") == ["password", "totp"], "\(first)")
        #expect(Self.error(try Self.logIn(a, next)) == "141 Invalid MFA token")
        // A recovery code, once.
        let recovery = try #require(codes[0].stringValue)
        #expect(Self.error(try Self.logIn(a, recovery)) == nil)
        #expect(Self.error(try Self.logIn(b, recovery)) == "141 Invalid recovery code.")
    }

    /// The key seals the links of queued mail as well as TOTP secrets: an external database needs
    /// it even with second factors off.
    @Test(arguments: [SecondFactorMode.optional, .off])
    func anExternalDatabaseNeedsTheSecretKey(mfa: SecondFactorMode) throws {
        var settings = Settings()
        settings.databaseURL = "postgresql://nobody@127.0.0.1:1/none"
        settings.port = 0
        settings.mfa = mfa
        let error = #expect(throws: GatehouseServer.StartError.self) { try GatehouseServer(settings: settings) }
        #expect(error?.description.hasPrefix("GATEHOUSE_SECRET_KEY (--secret-key) must be set with DATABASE_URL") == true, "\(String(describing: error))")
    }

    @Test func withSecondFactorsOffTOTPIsUnsupported() throws {
        let off = try LiveServer { $0.mfa = .off }
        let signUp = try off.graphQL(Documents.signUp, variables: Documents.credentials("alice", "larch-ridge-11")).json()
        #expect(signUp.at("data", "signUp", "viewer", "sessionToken") != nil, "\(signUp)")
        #expect(Self.error(try Self.logIn(off, "123456")) == "252 This authentication method is unsupported.")
    }

    @Test func theKeyFileIsMadeOnceWithMode0600AndReadAfter() throws {
        let directory = TemporaryDirectory.make(prefix: "ghkey")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try SecretKeyFile.readOrCreate(directory: directory)
        #expect(try SecretKeyFile.readOrCreate(directory: directory) == key)
        _ = try SecretBox(secretKey: key, purpose: .totp)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/secret-key")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // A settings key wins over the file.
        var settings = Settings()
        settings.secretKey = String(repeating: "0", count: 64)
        let fromSetting = try GatehouseServer.secretBox(settings, keyDirectory: directory, purpose: .totp)
        let fromFile = try GatehouseServer.secretBox(Settings(), keyDirectory: directory, purpose: .totp)
        #expect(fromFile.open(fromSetting.seal([1])) == nil)
        // The file's key seals mail links too, under a key of their own.
        let links = try GatehouseServer.secretBox(Settings(), keyDirectory: directory, purpose: .mailLinks)
        #expect(links.open(fromFile.seal([1])) == nil)
        #expect(try GatehouseServer.secretBox(Settings(), keyDirectory: directory, purpose: .mailLinks).open(links.seal([1])) == [1])
    }

    @Test func theKeyFileIsNotFollowedThroughALinkNorAcceptedWhenBroken() throws {
        let directory = TemporaryDirectory.make(prefix: "ghkey")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createSymbolicLink(atPath: directory + "/secret-key", withDestinationPath: directory + "/elsewhere")
        #expect(throws: SecretKeyFile.Failure.self) { try SecretKeyFile.readOrCreate(directory: directory) }
        #expect(!FileManager.default.fileExists(atPath: directory + "/elsewhere"))
        try FileManager.default.removeItem(atPath: directory + "/secret-key")
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: directory + "/secret-key"))
        let error = #expect(throws: GatehouseServer.StartError.self) { try GatehouseServer.secretBox(Settings(), keyDirectory: directory, purpose: .totp) }
        #expect(error?.description.hasPrefix("GATEHOUSE_SECRET_KEY the key file \(directory)/secret-key must be 64 hexadecimal characters") == true,
                "\(String(describing: error))")
        #expect(error?.description.contains("not a key") == false)
    }
}
