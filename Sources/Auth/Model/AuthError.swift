import JSON

/// Everything the auth domain refuses, each with Parse's numeric code and exact
/// message (Parse Server 7's where it has one; docs/api.md lists them all under "Errors").
public enum AuthError: Error, Sendable, Hashable {
    /// 200: signUp without `fields`, or the username missing, null or empty.
    case usernameMissing
    /// 201: signUp with the password missing, null or empty.
    case passwordMissing
    /// 200: logIn with an empty username.
    case logInUsernameMissing
    /// 201: logIn with an empty password.
    case logInPasswordMissing
    /// 202: the username is taken (compared case-insensitively).
    case usernameTaken
    /// 203: the email is taken (compared case-insensitively).
    case emailTaken
    /// 125: the email is not `something@something`.
    case invalidEmail
    /// 142: the password breaks the password policy.
    case weakPassword
    /// 142: the password is on the built-in list of common passwords or in the operator's
    /// blocklist of breached ones.
    case commonPassword
    /// 142: `field` is longer than `limit` (the contract's field sizes).
    case tooLong(field: String, limit: String)
    /// 142: `field` (an `Object` value, or a user's declared fields together) is more than `bytes` bytes of JSON.
    case tooLarge(field: String, bytes: Int)
    /// 142: the list `field` has more than `limit` items.
    case tooManyItems(field: String, limit: Int)
    /// 142: a `displayName` that is empty after trimming.
    case displayNameEmpty
    /// 142: a profile string holding a NUL character, which PostgreSQL cannot store.
    case nulCharacter(field: String)
    /// 142: a `photoURL` that is not an absolute https URL (http on a loopback host).
    case photoURLNotHTTPS
    /// 119: `emailVerified` given without the master key.
    case emailVerificationNotAllowed
    /// 119: a `@serverOnly` or `@hidden` field given without the master key.
    case fieldNotWritable(field: String)
    /// 101: no such user or a wrong password (one message for both).
    case invalidCredentials
    /// 101: the account is locked for `minutes` more minutes.
    case accountLocked(minutes: Int)
    /// 209: no token, or an unknown or logged-out one.
    case invalidSession
    /// 209: the token's session has expired.
    case sessionExpired
    /// 252: a provider not configured or disabled, `authData` naming none or several, or a
    /// non-empty `authData` on signUp or logIn.
    case unsupportedAuthentication
    /// 155: too many attempts; try again after `retryAfter` seconds.
    case rateLimited(retryAfter: Int)
    /// 155: password hashing would wait longer than its maximum wait; try again shortly.
    case busy
    /// The database cannot be reached (pool timeout, connection refused).
    case databaseUnavailable
    /// Anything unexpected; `detail` is for the log only, never for the client.
    case internalError(detail: String)
    /// 200: confirmResetPassword / verifyEmail with an empty username.
    case linkUsernameMissing
    /// 201: confirmResetPassword with an empty password.
    case newPasswordMissing
    /// 204: resetPassword / sendVerificationEmail with an empty email.
    case emailMissing
    /// -1: confirmResetPassword / verifyEmail with an empty token.
    case tokenMissing
    /// -1: an unknown or used reset token, or one that is not the named user's.
    case invalidResetLink
    /// -1: a reset token past its lifetime.
    case resetLinkExpired
    /// -1: an unknown or expired verification token, or one for an address the user no longer has.
    case invalidVerificationLink
    /// 205: `GATEHOUSE_VERIFY_EMAILS=required` and the user's email is not verified.
    case emailNotVerified
    /// 206: updateUser without a session or the master key.
    case cannotModifyUser(objectId: String)
    /// 206: deleteUser without a session or the master key.
    case cannotDeleteUser
    /// 206: another user's object.
    case insufficientAuth
    /// 206: a password or email change, or deletion, without recent authentication.
    case recentLoginRequired
    /// 101: no such object (or not the caller's to see).
    case objectNotFound
    /// 101: logInWith or a link whose provider data failed a check (which one goes to the log only).
    case invalidAuthData(provider: String)
    /// 208: the provider id is linked to another user.
    case authAlreadyUsed
    /// 142: an unlink would leave no password and no provider other than `anonymous`.
    case lastWayToLogIn
    /// 142: an `anonymous` id linked to a user who has another way to log in (a guest's id is
    /// no way into a regular account).
    case guestIdOfRegularUser
    /// -1: the right password for a user with TOTP, but no `authData.mfa` code.
    case secondFactorMissing
    /// 141: a TOTP code that is wrong, used already or outside the window.
    case invalidMFAToken
    /// 141: a recovery code the user does not have (any more).
    case invalidRecoveryCode
    /// 142: a TOTP secret to enrol that is not base32 or shorter than 32 characters.
    case invalidMFASecret
    /// 206: `GATEHOUSE_MFA=required` and the session was made without a second factor.
    case secondFactorEnrolmentRequired
    /// 206: enrolling a second factor (TOTP or a passkey) from a session made without one, for
    /// a user who has one already: only a log-in with it may add another.
    case secondFactorSessionRequired
    /// 142: a passkey registration failed a check (which one goes to the log only).
    case invalidPasskeyRegistration
    /// 101: a passkey log-in failed a check (which one goes to the log only).
    case invalidPasskey
    /// 142: an access token for an audience not in `GATEHOUSE_ACCESS_TOKEN_AUDIENCES`.
    case unknownAudience(String)
    /// 142: the user's claims would make an access token longer than its limit.
    case accessTokenTooLarge
    /// 141: a `beforeSignUp` or `beforeLogIn` hook refused (its message, cleaned), or failed with
    /// `onError` `reject` (the contract's message for the operation).
    case hookRefused(message: String)
    /// 119: an operator's field (the audit log, webhook deliveries) without the master key.
    case masterKeyRequired
    /// 102: an argument out of its range, or a cursor that is not one (the message says which).
    case invalidArgument(String)

    /// Parse's error code.
    public var code: Int {
        switch self {
        case .usernameMissing, .logInUsernameMissing: 200
        case .passwordMissing, .logInPasswordMissing: 201
        case .usernameTaken: 202
        case .emailTaken: 203
        case .invalidEmail: 125
        case .weakPassword, .commonPassword, .tooLong, .tooLarge, .tooManyItems, .displayNameEmpty, .nulCharacter,
            .photoURLNotHTTPS: 142
        case .emailVerificationNotAllowed, .fieldNotWritable, .masterKeyRequired: 119
        case .invalidArgument: 102
        case .invalidCredentials, .accountLocked: 101
        case .invalidSession, .sessionExpired: 209
        case .unsupportedAuthentication: 252
        case .rateLimited, .busy: 155
        case .databaseUnavailable, .internalError: 1
        case .linkUsernameMissing: 200
        case .newPasswordMissing: 201
        case .emailMissing: 204
        case .tokenMissing, .invalidResetLink, .resetLinkExpired, .invalidVerificationLink: -1
        case .emailNotVerified: 205
        case .cannotModifyUser, .cannotDeleteUser, .insufficientAuth, .recentLoginRequired: 206
        case .objectNotFound, .invalidAuthData: 101
        case .authAlreadyUsed: 208
        case .lastWayToLogIn, .guestIdOfRegularUser, .invalidPasskeyRegistration: 142
        case .invalidPasskey: 101
        case .unknownAudience, .accessTokenTooLarge: 142
        case .secondFactorMissing: -1
        case .invalidMFAToken, .invalidRecoveryCode, .hookRefused: 141
        case .invalidMFASecret: 142
        case .secondFactorEnrolmentRequired, .secondFactorSessionRequired: 206
        }
    }

    /// The message the client sees (exactly Parse's where Parse has one).
    public var message: String {
        switch self {
        case .usernameMissing: "bad or missing username"
        case .passwordMissing: "password is required"
        case .logInUsernameMissing: "username/email is required."
        case .logInPasswordMissing: "password is required."
        case .usernameTaken: "Account already exists for this username."
        case .emailTaken: "Account already exists for this email address."
        case .invalidEmail: "Email address format is invalid."
        case .weakPassword: "Password does not meet the Password Policy requirements."
        case .commonPassword: "Password is too common."
        case .tooLong(let field, let limit): "\(field) is too long (at most \(limit))."
        case .tooLarge(let field, let bytes): "\(field) is too large (at most \(bytes) bytes)."
        case .tooManyItems(let field, let limit): "\(field) has too many items (at most \(limit))."
        case .displayNameEmpty: "displayName must not be empty."
        case .photoURLNotHTTPS: "photoURL must be an https URL."
        case .nulCharacter(let field): "\(field) must not contain a NUL character."
        case .fieldNotWritable(let field): "Permission denied to set \(field)."
        case .emailVerificationNotAllowed: "Clients aren't allowed to manually update email verification."
        case .invalidCredentials: "Invalid username/password."
        case .accountLocked(let minutes):
            "Your account is locked due to multiple failed login attempts. Please try again after \(minutes) minute(s)"
        case .invalidSession: "Invalid session token"
        case .sessionExpired: "Session token is expired."
        case .unsupportedAuthentication: "This authentication method is unsupported."
        case .rateLimited, .busy: "Too many requests."
        case .databaseUnavailable: "Database unavailable."
        case .internalError: "Internal server error"
        case .linkUsernameMissing: "you must provide a username"
        case .newPasswordMissing: "you must provide a password"
        case .emailMissing: "you must provide an email"
        case .tokenMissing: "you must provide a token"
        case .invalidResetLink: "Failed to reset password: username / email / token is invalid"
        case .resetLinkExpired: "The password reset link has expired"
        case .invalidVerificationLink: "Invalid or expired verification link."
        case .emailNotVerified: "User email is not verified."
        case .cannotModifyUser(let objectId): "Cannot modify user \(objectId)."
        case .cannotDeleteUser: "Insufficient auth to delete user"
        case .insufficientAuth: "Insufficient auth."
        case .recentLoginRequired: "Recent authentication required."
        case .objectNotFound: "Object not found."
        case .invalidAuthData(let provider): "Invalid authData for provider \(provider)."
        case .authAlreadyUsed: "this auth is already used"
        case .lastWayToLogIn: "The last way to log in cannot be removed."
        case .guestIdOfRegularUser: "An anonymous id can only be linked to a guest account."
        case .secondFactorMissing: "Missing additional authData mfa"
        case .invalidMFAToken: "Invalid MFA token"
        case .invalidRecoveryCode: "Invalid recovery code."
        case .invalidMFASecret: "Invalid MFA secret"
        case .secondFactorEnrolmentRequired: "Second factor enrolment required."
        case .secondFactorSessionRequired: "Second factor required."
        case .invalidPasskeyRegistration: "Invalid passkey registration."
        case .invalidPasskey: "Invalid passkey."
        case .unknownAudience(let audience): "Unknown audience \(audience.utf8Prefix(AuthError.quotedInputBytes))."
        case .accessTokenTooLarge: "Access token too large."
        case .hookRefused(let message): message
        case .masterKeyRequired: "Permission denied: master key required."
        case .invalidArgument(let message): message
        }
    }

    /// The most UTF-8 bytes of a client's input a message quotes (an audience), so that no
    /// request makes a long message.
    static let quotedInputBytes = 256

    /// Seconds a client should wait before retrying, for errors that have one.
    public var retryAfter: Int? {
        switch self {
        case .rateLimited(let seconds): seconds
        case .busy: 1
        case .databaseUnavailable: 1
        default: nil
        }
    }
}
