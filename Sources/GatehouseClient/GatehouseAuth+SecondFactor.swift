import Foundation

/// A second factor from an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 seconds) with
/// recovery codes, in Parse's `authData.mfa` shapes.
///
/// ```swift
/// let secret = GatehouseAuth.newTOTPSecret()
/// showQRCode(GatehouseAuth.totpURI(secret: secret, issuer: "Gatehouse", username: "alice"))
/// let recoveryCodes = try await auth.enrollTOTP(secret: secret, code: codeTypedFromTheApp)  // show once
/// try await auth.logIn(username: "alice", password: password, totpCode: "123456")
/// let newCodes = try await auth.regenerateRecoveryCodes(code: "654321")
/// try await auth.disableTOTP()  // needs a session made with the second factor
/// ```
///
/// Enrolment, new recovery codes and removal need a recent log-in on the server
/// (`GATEHOUSE_RECENT_AUTH`): pass `currentPassword`, or catch ``GatehouseError/recentLoginRequired``.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// A new random TOTP secret: 160 bits as 32 base32 characters (`A`–`Z`, `2`–`7`), from the
    /// system's secure random source. Keep it only until ``enrollTOTP(secret:code:currentPassword:)``
    /// succeeds; the server never returns it.
    public static func newTOTPSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        // 32 characters of 5 bits each: 160 bits, each character chosen uniformly.
        return String((0..<32).map { _ in alphabet[Int(generator.next() & 31)] })
    }

    /// The `otpauth://totp/<issuer>:<username>?secret=…&issuer=…` URI authenticator apps read
    /// from a QR code (Google's key URI format; the defaults SHA-1, 6 digits and 30 seconds are
    /// the server's). `issuer` should be the server's `GATEHOUSE_APP_NAME`.
    public static func totpURI(secret: String, issuer: String, username: String) -> String {
        // Only unreserved characters stay as they are (RFC 3986 §2.3); ":" and spaces are encoded.
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        return "otpauth://totp/\(encode(issuer)):\(encode(username))?secret=\(encode(secret))&issuer=\(encode(issuer))"
    }

    /// Turns TOTP on for the signed-in user with `secret` (base32, at least 32 characters; see
    /// ``newTOTPSecret()``) and the `code` the authenticator app shows for it, and returns the
    /// ten recovery codes: show them this once, the server keeps only their digests. Enrolling
    /// again replaces the secret; like enrolling beside a passkey that verifies its user, it needs
    /// a session made with a second factor.
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/invalidSecondFactorCode``, ``GatehouseError/invalidTOTPSecret``,
    ///   ``GatehouseError/recentLoginRequired``, ``GatehouseError/secondFactorLogInRequired``,
    ///   ``GatehouseError/invalidCredentials(message:)``
    ///   (a wrong `currentPassword`), ``GatehouseError/unsupportedProvider`` (the server has
    ///   `GATEHOUSE_MFA=off`), ``GatehouseError/sessionInvalid``, or a network, storage or server error.
    public func enrollTOTP(secret: String, code: String, currentPassword: String? = nil) async throws(GatehouseError) -> [String] {
        try await recoveryCodes(["secret": .string(secret), "token": .string(code)], currentPassword: currentPassword)
    }

    /// Replaces the signed-in user's recovery codes with ten new ones, shown this once; the old
    /// ones stop working. `code` is the authenticator app's current code, or a recovery code
    /// (used up by this).
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/invalidSecondFactorCode`` (also when TOTP is not on),
    ///   ``GatehouseError/invalidRecoveryCode``, ``GatehouseError/recentLoginRequired``, ``GatehouseError/sessionInvalid``, or a network,
    ///   storage or server error.
    public func regenerateRecoveryCodes(code: String, currentPassword: String? = nil) async throws(GatehouseError) -> [String] {
        try await recoveryCodes(["token": .string(code), "recovery": .bool(true)], currentPassword: currentPassword)
    }

    /// Turns TOTP off for the signed-in user; returns the updated user.
    ///
    /// The server allows this only from a session made with the second factor (a log-in with a
    /// code or recovery code, or the session that enrolled: see ``Session/factors``) and a
    /// recent log-in, so a stolen password and session cannot take it off.
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/recentLoginRequired`` (also for a session made without the second
    ///   factor: log in again with a code), ``GatehouseError/sessionInvalid``, or a network,
    ///   storage or server error.
    @discardableResult
    public func disableTOTP(currentPassword: String? = nil) async throws(GatehouseError) -> User {
        try await updateUser(["authData": ["mfa": .null]], currentPassword: currentPassword).user
    }

    /// `updateUser` with `authData.mfa` set to `mfa`; the recovery codes of the answer.
    private func recoveryCodes(_ mfa: [String: JSONValue], currentPassword: String?) async throws(GatehouseError) -> [String] {
        let answer = try await updateUser(["authData": ["mfa": .object(mfa)]], currentPassword: currentPassword)
        guard let codes = answer.authDataResponse?["mfa"]?["recovery"]?.array?.compactMap(\.string), !codes.isEmpty else {
            throw .server(code: nil, message: "The server sent no recovery codes.")
        }
        return codes
    }
}
