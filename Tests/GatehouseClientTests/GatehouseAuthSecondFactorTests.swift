import OneTimeCodes
import Foundation
import GatehouseClient
import GatehouseServer
import ServerTestSupport
import Testing

/// TOTP through GatehouseAuth against an in-process server, with codes made by `OneTimeCodes.TOTP`:
/// the secret and URI helpers, enrolment, log-in with a code or a recovery code, the -1 and 141
/// answers, new recovery codes, removal, and `GATEHOUSE_MFA=required`.
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthSecondFactorTests {
    func client(_ server: InProcessServer) throws -> GatehouseAuth {
        try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: server.url), store: MemorySessionStore())
    }

    /// The authenticator app: codes for `secret` by step.
    struct App {
        let totp: TOTP
        /// The step of the enrolment code; later codes are for the steps after it, since a step
        /// once accepted is refused (the window of one step either way lets the next one in).
        let step: Int64

        init(secret: String) throws {
            totp = TOTP(secret: try #require(Base32.decode(secret)))
            step = totp.step(at: Date())
        }

        func code(after steps: Int64 = 0) -> String { totp.code(step: step + steps) }
    }

    /// A client signed up as `name` (password `larch-ridge-11`) that enrolled TOTP; its app and recovery codes.
    func enrolled(_ server: InProcessServer, _ name: String) async throws -> (auth: GatehouseAuth, app: App, recovery: [String]) {
        let auth = try client(server)
        try await auth.signUp(username: name, password: "larch-ridge-11")
        let secret = GatehouseAuth.newTOTPSecret()
        let app = try App(secret: secret)
        let recovery = try await auth.enrollTOTP(secret: secret, code: app.code())
        return (auth, app, recovery)
    }

    @Test func newSecretsAreRandomBase32Of160Bits() throws {
        let secrets = Set((0..<50).map { _ in GatehouseAuth.newTOTPSecret() })
        #expect(secrets.count == 50)
        for secret in secrets {
            #expect(secret.wholeMatch(of: /[A-Z2-7]{32}/) != nil)
            #expect(Base32.decode(secret)?.count == 20)
        }
        // Every character of the alphabet turns up (50 × 32 draws of 32 characters).
        #expect(Set(secrets.joined()).count == 32)
    }

    @Test func theURIIsGooglesKeyURIFormatWithEncodedLabel() {
        #expect(GatehouseAuth.totpURI(secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", issuer: "Gatehouse", username: "alice")
            == "otpauth://totp/Gatehouse:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Gatehouse")
        #expect(GatehouseAuth.totpURI(secret: "JBSWY3DPEHPK3PXP", issuer: "Acme & Co", username: "bob:smith@example.com")
            == "otpauth://totp/Acme%20%26%20Co:bob%3Asmith%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20%26%20Co")
    }

    @Test func theCodeTravelsAsAuthDataMfaToken() async throws {
        let canned = try StandInGraphQLServer { operation in
            let field = operation == "LogIn" ? "logIn" : "logInWith"
            let user = GatehouseAuthProviderTests.Canned.user
            return #"{"data": {"\#(field)": {"viewer": {"sessionToken": "r:0123456789abcdef0123456789abcdef", "user": \#(user)}}}}"#
        }
        defer { canned.stop() }
        let auth = try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: canned.url), store: MemorySessionStore())
        try await auth.logIn(username: "alice", password: "larch-ridge-11")
        try await auth.logIn(username: "alice", password: "larch-ridge-11", totpCode: "123456")
        try await auth.logIn(with: .google(idToken: GatehouseAuthProviderTests.token(#"{"sub":"1"}"#)), totpCode: "abcde-12345")
        #expect(canned.inputs.count == 3)
        #expect(Array(canned.inputs.prefix(2)) == [
            #"{"password":"larch-ridge-11","username":"alice"}"#,
            #"{"authData":{"mfa":{"token":"123456"}},"password":"larch-ridge-11","username":"alice"}"#,
        ])
        #expect(canned.inputs[2].hasPrefix(#"{"authData":{"google":{"id":"1","id_token":""#))
        #expect(canned.inputs[2].hasSuffix(#""},"mfa":{"token":"abcde-12345"}}}"#))
    }

    @Test func enrolThenLogInWithACodeOrARecoveryCodeEachOnce() async throws {
        let server = try InProcessServer { $0.rateLimitPerAccount = 0 }  // more log-ins than its limit
        defer { server.stop() }
        let (_, app, recovery) = try await enrolled(server, "alice")
        #expect(recovery.count == 10)
        #expect(Set(recovery).count == 10)
        #expect(recovery.allSatisfy { $0.wholeMatch(of: /[A-Za-z0-9]{5}-[A-Za-z0-9]{5}/) != nil })

        // The right password without a code: -1, and nothing is stored.
        let auth = try client(server)
        await #expect(throws: GatehouseError.secondFactorRequired) { try await auth.logIn(username: "alice", password: "larch-ridge-11") }
        #expect(auth.currentUser == nil)
        // A wrong password is 101 as always, code or not.
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.logIn(username: "alice", password: "larch-ridge-12", totpCode: app.code(after: 1))
        }
        // A wrong code, and the enrolment's own code again (used): 141.
        await #expect(throws: GatehouseError.invalidSecondFactorCode) {
            try await auth.logIn(username: "alice", password: "larch-ridge-11", totpCode: app.code(after: 5))
        }
        await #expect(throws: GatehouseError.invalidSecondFactorCode) {
            try await auth.logIn(username: "alice", password: "larch-ridge-11", totpCode: app.code())
        }
        #expect(auth.currentUser == nil)

        #expect(try await auth.logIn(username: "alice", password: "larch-ridge-11", totpCode: app.code(after: 1)).username == "alice")
        #expect(try await auth.sessions().first(where: \.isCurrent)?.factors == ["password", "totp"])
        await #expect(throws: GatehouseError.invalidSecondFactorCode) {  // replayed
            try await client(server).logIn(username: "alice", password: "larch-ridge-11", totpCode: app.code(after: 1))
        }

        let byRecovery = try client(server)
        try await byRecovery.logIn(username: "alice", password: "larch-ridge-11", totpCode: recovery[3])
        #expect(try await byRecovery.sessions().first(where: \.isCurrent)?.factors == ["password", "totp"])
        await #expect(throws: GatehouseError.invalidRecoveryCode) {  // used up
            try await client(server).logIn(username: "alice", password: "larch-ridge-11", totpCode: recovery[3])
        }
        try await client(server).logIn(username: "alice", password: "larch-ridge-11", totpCode: recovery[4])
    }

    @Test func enrolmentErrors() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let auth = try client(server)
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.enrollTOTP(secret: GatehouseAuth.newTOTPSecret(), code: "123456") }
        try await auth.signUp(username: "carol", password: "larch-ridge-11")
        let secret = GatehouseAuth.newTOTPSecret()
        let app = try App(secret: secret)
        await #expect(throws: GatehouseError.invalidTOTPSecret) { try await auth.enrollTOTP(secret: "JBSWY3DPEHPK3PXP", code: "123456") }
        await #expect(throws: GatehouseError.invalidTOTPSecret) { try await auth.enrollTOTP(secret: String(repeating: "1", count: 32), code: "123456") }
        await #expect(throws: GatehouseError.invalidSecondFactorCode) { try await auth.enrollTOTP(secret: secret, code: app.code(after: 5)) }
        await #expect(throws: GatehouseError.invalidCredentials(message: "Invalid username/password.")) {
            try await auth.enrollTOTP(secret: secret, code: app.code(), currentPassword: "larch-ridge-12")
        }
        // Still not enrolled: a log-in needs no code.
        try await client(server).logIn(username: "carol", password: "larch-ridge-11")
        // With the right current password (a session of any age).
        #expect(try await auth.enrollTOTP(secret: secret, code: app.code(), currentPassword: "larch-ridge-11").count == 10)
        await #expect(throws: GatehouseError.secondFactorRequired) { try await client(server).logIn(username: "carol", password: "larch-ridge-11") }
        #expect(GatehouseError.invalidTOTPSecret.code == 142 && GatehouseError.invalidSecondFactorCode.code == 141)
        #expect(GatehouseError.invalidRecoveryCode.code == 141 && GatehouseError.secondFactorLogInRequired.code == 206)
        #expect(GatehouseError.secondFactorRequired.code == -1)
    }

    @Test func newRecoveryCodesReplaceTheOldOnes() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let (auth, app, old) = try await enrolled(server, "dave")
        await #expect(throws: GatehouseError.invalidSecondFactorCode) { try await auth.regenerateRecoveryCodes(code: app.code()) }  // used
        let new = try await auth.regenerateRecoveryCodes(code: app.code(after: 1))
        #expect(new.count == 10)
        #expect(Set(new).isDisjoint(with: old))
        await #expect(throws: GatehouseError.invalidRecoveryCode) {
            try await client(server).logIn(username: "dave", password: "larch-ridge-11", totpCode: old[0])
        }
        try await client(server).logIn(username: "dave", password: "larch-ridge-11", totpCode: new[0])
        // A recovery code does for the code, once.
        #expect(try await auth.regenerateRecoveryCodes(code: new[1]).count == 10)
    }

    @Test func disablingNeedsASessionMadeWithTheSecondFactor() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let before = try client(server)
        let auth = try client(server)
        try await auth.signUp(username: "erin", password: "larch-ridge-11")
        try await before.logIn(username: "erin", password: "larch-ridge-11")
        let secret = GatehouseAuth.newTOTPSecret()
        let app = try App(secret: secret)
        _ = try await auth.enrollTOTP(secret: secret, code: app.code())
        #expect(try await auth.sessions().first(where: \.isCurrent)?.factors == ["password", "totp"])

        // A session from before the enrolment has only the password: refused, even with it.
        #expect(try await before.sessions().first(where: \.isCurrent)?.factors == ["password"])
        await #expect(throws: GatehouseError.recentLoginRequired) { try await before.disableTOTP() }
        await #expect(throws: GatehouseError.recentLoginRequired) { try await before.disableTOTP(currentPassword: "larch-ridge-11") }

        // The enrolling session may.
        #expect(try await auth.disableTOTP().username == "erin")
        try await client(server).logIn(username: "erin", password: "larch-ridge-11")
        await #expect(throws: GatehouseError.invalidSecondFactorCode) { try await auth.regenerateRecoveryCodes(code: app.code(after: 1)) }
    }

    @Test func whenRequiredASessionWithoutASecondFactorCanOnlyEnrol() async throws {
        let server = try InProcessServer { $0.mfa = .required }
        defer { server.stop() }
        let auth = try client(server)
        try await auth.signUp(username: "frank", password: "larch-ridge-11")
        await #expect(throws: GatehouseError.secondFactorEnrollmentRequired) { try await auth.revokeOtherSessions() }
        #expect(try await auth.refreshCurrentUser()?.username == "frank")  // viewer is allowed
        let secret = GatehouseAuth.newTOTPSecret()
        _ = try await auth.enrollTOTP(secret: secret, code: try App(secret: secret).code())
        #expect(try await auth.revokeOtherSessions() == 0)
        #expect(GatehouseError.secondFactorEnrollmentRequired.code == 206)
        #expect(GatehouseError.secondFactorEnrollmentRequired.errorDescription?.isEmpty == false)
    }
}
