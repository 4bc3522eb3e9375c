import Foundation

/// What went wrong in a ``GatehouseAuth`` call: the server's Parse error codes (see the API
/// contract) as cases, plus failures on this side of the wire.
public enum GatehouseError: Error, Sendable, Hashable {
    /// 202: an account already uses this username (compared case-insensitively).
    case usernameTaken
    /// 203: an account already uses this email address.
    case emailTaken
    /// 125: the email address is not of the form `something@something`.
    case invalidEmail
    /// 142: the password does not meet the server's password policy (too short).
    case weakPassword
    /// 142: the password is on the server's list of common or breached passwords.
    case commonPassword
    /// 142: a field is longer than the server accepts; `message` names it and its limit, e.g.
    /// `username is too long (at most 128 characters).`
    case fieldTooLong(message: String)
    /// 142: a profile value breaks the server's rule for its field; `message` names the field
    /// and the rule, e.g. `photoURL must be an https URL.`, `displayName must not be empty.`,
    /// `bio is too large (at most 4096 bytes).`, `favoriteColors has too many items (at most 10).`
    case invalidFieldValue(message: String)
    /// 119 `Permission denied to set <field>.`: only the server (its master key) sets this user
    /// field (`@serverOnly` or `@hidden` in the app's fields file); nothing was changed.
    case fieldNotWritable(field: String)
    /// ``GatehouseAuth/update(fields:)`` named a field the server does not declare on `User`
    /// (no request was made).
    case unknownUserField(String)
    /// 101: wrong username or password, or the account is locked after failed log-ins;
    /// `message` is the server's text (see ``isAccountLocked``).
    case invalidCredentials(message: String)
    /// 209: the stored session is unknown, logged out or expired; it has been cleared. Also
    /// thrown, without a request, by calls that need a session when signed out.
    case sessionInvalid
    /// 206: changing the password or email, or deleting the account, needs a recent log-in;
    /// ask for the current password and pass it as `currentPassword`.
    case recentLoginRequired
    /// -1: the password reset or email verification link (its username and token) is unknown,
    /// used up, or for another account.
    case invalidLink
    /// -1: the password reset link has expired; ask for a new one.
    case linkExpired
    /// 205: the server requires a verified email address before log-in; the account exists
    /// and a verification mail is on its way.
    case emailNotVerified
    /// The signed-in user has no email address to verify (no request was made).
    case noEmail
    /// 252: the server does not accept this log-in provider (not configured, or disabled).
    case unsupportedProvider
    /// 101 `Invalid authData for provider <name>.`: the server refused the provider's token
    /// (signature, issuer, audience, expiry, subject or nonce), or the SDK could not read the
    /// token's subject (no request was made).
    case invalidProviderToken(provider: String)
    /// 208: this provider account is already linked to another user.
    case providerAlreadyLinked
    /// 142: unlinking would leave the account without a way to log in (no password and no
    /// other provider); set a password or link another provider first.
    case lastLogInMethod
    /// 142 `An anonymous id can only be linked to a guest account.`: the signed-in user has a
    /// password, a provider or a passkey, and a guest's device id would be a password-less way in.
    case anonymousIdOfRegularUser
    /// -1 `Missing additional authData mfa`: the password was right and the account has a second
    /// factor; ask for the authenticator app's code (or a recovery code) and log in again with it.
    case secondFactorRequired
    /// 141 `Invalid MFA token`: the code is wrong, out of its time window or used already. Counts
    /// as a failed log-in on the server.
    case invalidSecondFactorCode
    /// 141 `Invalid recovery code.`: the recovery code is not one of the account's, or was used
    /// already. Counts as a failed log-in on the server.
    case invalidRecoveryCode
    /// 142 `Invalid MFA secret`: the TOTP secret is not base32 or shorter than 32 characters.
    case invalidTOTPSecret
    /// 206 `Second factor enrolment required.`: the server requires a second factor and this
    /// session was made without one; enrol TOTP or a passkey (or log out).
    case secondFactorEnrollmentRequired
    /// 206 `Second factor required.`: adding TOTP or a passkey to an account that has a second
    /// factor needs a session made with it; log in again with the code or the passkey first.
    case secondFactorLogInRequired
    /// 101 `Invalid passkey.`: the server refused a passkey log-in (any check, or an expired or
    /// used challenge: ask for new options), or the passkey is disabled as possibly cloned.
    case invalidPasskey
    /// 142 `Invalid passkey registration.`: the server refused the new credential.
    case invalidPasskeyRegistration
    /// 142 `Unknown audience <audience>.`: the server issues no access tokens for that audience
    /// (its `GATEHOUSE_ACCESS_TOKEN_AUDIENCES`).
    case unknownAudience(String)
    /// 142 `Access token too large.`: the user's claims would make a token past the server's limit.
    case accessTokenTooLarge
    /// 155: too many attempts; `retryAfter` is the server's `Retry-After` in seconds, when sent.
    case rateLimited(retryAfter: Int?)
    /// HTTP 403 `{"error":"unauthorized"}`: the application id is missing or wrong.
    case unauthorized
    /// The server could not be reached, or the connection failed.
    case network(String)
    /// The session store could not be read or written.
    case storage(String)
    /// Any other error from the server: its Parse code (when it sent one) and message.
    case server(code: Int?, message: String)

    /// Maps a GraphQL error's `extensions.code` and message to a case.
    init(code: Int?, message: String, retryAfter: Int? = nil) {
        switch code {
        case 202: self = .usernameTaken
        case 203: self = .emailTaken
        case 125: self = .invalidEmail
        case 252 where message == "This authentication method is unsupported.": self = .unsupportedProvider
        case 101 where message.hasPrefix(Self.invalidAuthDataPrefix) && message.hasSuffix("."):
            self = .invalidProviderToken(provider: String(message.dropFirst(Self.invalidAuthDataPrefix.count).dropLast()))
        case 208 where message == "this auth is already used": self = .providerAlreadyLinked
        case -1 where message == "Missing additional authData mfa": self = .secondFactorRequired
        case 141 where message == "Invalid MFA token": self = .invalidSecondFactorCode
        case 141 where message == "Invalid recovery code.": self = .invalidRecoveryCode
        case 142 where message == "Invalid MFA secret": self = .invalidTOTPSecret
        case 142 where message == "Invalid passkey registration.": self = .invalidPasskeyRegistration
        case 142 where message.hasPrefix(Self.unknownAudiencePrefix) && message.hasSuffix("."):
            self = .unknownAudience(String(message.dropFirst(Self.unknownAudiencePrefix.count).dropLast()))
        case 142 where message == "Access token too large.": self = .accessTokenTooLarge
        case 101 where message == "Invalid passkey.": self = .invalidPasskey
        case 206 where message == "Second factor enrolment required.": self = .secondFactorEnrollmentRequired
        case 206 where message == "Second factor required.": self = .secondFactorLogInRequired
        case 142 where message == "The last way to log in cannot be removed.": self = .lastLogInMethod
        case 142 where message == "An anonymous id can only be linked to a guest account.": self = .anonymousIdOfRegularUser
        case 142 where message.contains(" is too long (at most "): self = .fieldTooLong(message: message)
        case 142 where Self.isFieldRule(message): self = .invalidFieldValue(message: message)
        case 119 where message.hasPrefix(Self.permissionDeniedPrefix) && message.hasSuffix("."):
            self = .fieldNotWritable(field: String(message.dropFirst(Self.permissionDeniedPrefix.count).dropLast()))
        case 142 where message == "Password is too common.": self = .commonPassword
        case 142: self = .weakPassword
        case 101 where message != "Object not found.": self = .invalidCredentials(message: message)
        case 206 where message == "Recent authentication required.": self = .recentLoginRequired
        case 205: self = .emailNotVerified
        case -1 where message == "The password reset link has expired": self = .linkExpired
        case -1 where message.hasPrefix("Failed to reset password:") || message == "Invalid or expired verification link.":
            self = .invalidLink
        case 209: self = .sessionInvalid
        case 155: self = .rateLimited(retryAfter: retryAfter)
        default: self = .server(code: code, message: message)
        }
    }

    /// The start of the server's 101 message for a refused provider token; the provider's name follows.
    private static let invalidAuthDataPrefix = "Invalid authData for provider "
    /// The start of the server's 119 message for a field only the master key sets; the field's name follows.
    private static let permissionDeniedPrefix = "Permission denied to set "

    /// Whether a 142 message is one of a profile field's rules (other than its length, which
    /// ``fieldTooLong(message:)`` has for every field).
    private static func isFieldRule(_ message: String) -> Bool {
        message == "photoURL must be an https URL." || message == "displayName must not be empty."
            || message.contains(" is too large (at most ") || message.contains(" has too many items (at most ")
            || message.hasSuffix(" must not contain a NUL character.")
    }
    /// The start of the server's 142 message for an audience it has no tokens for; the audience follows.
    private static let unknownAudiencePrefix = "Unknown audience "

    /// The Parse error code of a server error, or `nil` for client-side failures.
    public var code: Int? {
        switch self {
        case .usernameTaken: 202
        case .emailTaken: 203
        case .invalidEmail: 125
        case .weakPassword, .commonPassword, .fieldTooLong, .invalidFieldValue, .lastLogInMethod, .anonymousIdOfRegularUser,
            .invalidTOTPSecret, .invalidPasskeyRegistration, .unknownAudience, .accessTokenTooLarge:
            142
        case .invalidCredentials, .invalidProviderToken, .invalidPasskey: 101
        case .invalidSecondFactorCode, .invalidRecoveryCode: 141
        case .unsupportedProvider: 252
        case .providerAlreadyLinked: 208
        case .sessionInvalid: 209
        case .rateLimited: 155
        case .recentLoginRequired, .secondFactorEnrollmentRequired, .secondFactorLogInRequired: 206
        case .invalidLink, .linkExpired, .secondFactorRequired: -1
        case .emailNotVerified: 205
        case .fieldNotWritable: 119
        case .server(let code, _): code
        case .unauthorized, .network, .storage, .noEmail, .unknownUserField: nil
        }
    }

    /// Whether a 101 error says the account is locked (rather than a wrong password).
    public var isAccountLocked: Bool {
        if case .invalidCredentials(let message) = self { return message.lowercased().contains("locked") }
        return false
    }
}

extension GatehouseError: LocalizedError {
    /// A sentence in plain words, suitable to show to the person using the app.
    public var errorDescription: String? {
        switch self {
        case .usernameTaken: return "That username is already taken. Try another one."
        case .emailTaken: return "An account already uses that email address. Log in instead?"
        case .invalidEmail: return "That doesn't look like an email address."
        case .weakPassword: return "That password is too weak. Use a longer one (at least 8 characters)."
        case .commonPassword: return "That password is too common. Choose one that is harder to guess."
        case .invalidFieldValue("photoURL must be an https URL."): return "The photo's address must start with https://."
        case .invalidFieldValue("displayName must not be empty."): return "The display name must not be empty."
        case .fieldTooLong(let message), .invalidFieldValue(let message):
            return message.prefix(1).uppercased() + message.dropFirst()
        case .fieldNotWritable(let field): return "Only the app's server can change \(field)."
        case .unknownUserField(let name): return "The server keeps no user field named \(name)."
        case .invalidCredentials(let message):
            if isAccountLocked {
                let minutes = message.split(separator: " ").compactMap { Int($0) }.first
                return "Your account is locked after too many failed log-ins. Try again in "
                    + (minutes.map { "\($0) minute\($0 == 1 ? "" : "s")" } ?? "a few minutes") + "."
            }
            return "The username or password is wrong."
        case .sessionInvalid: return "Your session has ended. Please log in again."
        case .rateLimited(let retryAfter):
            return "Too many attempts. Wait " + (retryAfter.map { "\($0) seconds" } ?? "a minute") + " and try again."
        case .recentLoginRequired: return "For your security, enter your current password to make this change."
        case .invalidLink: return "That link is not valid. It may have been used already; ask for a new one."
        case .linkExpired: return "That link has expired. Ask for a new one."
        case .emailNotVerified:
            return "Your email address is not verified yet. Open the link in the email we sent you, then log in."
        case .noEmail: return "Your account has no email address. Add one first."
        case .unsupportedProvider: return "This server does not offer that way to log in."
        case .invalidProviderToken(let provider):
            return "The sign-in with \(provider) was not accepted. Sign in with \(provider) again."
        case .providerAlreadyLinked: return "That account is already linked to another user."
        case .lastLogInMethod: return "This is your last way to log in. Set a password or link another account first."
        case .anonymousIdOfRegularUser: return "Only a guest account can be used without signing in."
        case .secondFactorRequired: return "Enter the code from your authenticator app, or one of your recovery codes."
        case .invalidSecondFactorCode:
            return "That code is wrong or was used already. Enter the current code from your authenticator app, or an unused recovery code."
        case .invalidRecoveryCode:
            return "That recovery code is not one of yours, or it was used already. Check it, or use another of your recovery codes."
        case .invalidTOTPSecret: return "The authenticator app's secret is not valid. Start the setup again."
        case .secondFactorEnrollmentRequired:
            return "This account needs a second factor. Set up an authenticator app or a passkey to continue."
        case .secondFactorLogInRequired:
            return "Log in with your authenticator app's code or your passkey first, then add another second factor."
        case .invalidPasskey: return "The passkey was not accepted. Try again, or log in another way."
        case .invalidPasskeyRegistration: return "The passkey could not be added. Try again."
        case .unknownAudience(let audience): return "This server issues no access tokens for \(audience)."
        case .accessTokenTooLarge: return "Your profile holds too much to fit in an access token."
        case .unauthorized: return "The server did not accept this app's application id."
        case .network(let detail): return "Cannot reach the server (\(detail)). Check the address and your connection."
        case .storage(let detail): return "The session could not be saved or read on this device (\(detail))."
        case .server(let code, let message):
            return "The server reported an error" + (code.map { " (code \($0))" } ?? "") + ": \(message)"
        }
    }
}
