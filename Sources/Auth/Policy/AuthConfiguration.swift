public import WebAuthn
import Foundation

/// The auth domain's settings: sessions, password policy, abuse limits.
public struct AuthConfiguration: Sendable {
    /// How long a new session lasts, in seconds (default: one year, as Parse).
    public var sessionLength: Int
    public var passwordPolicy: PasswordPolicy
    public var rateLimits: RateLimitPolicy
    public var lockout: LockoutPolicy?
    /// When set, requests presenting it (constant-time compared) act as master.
    public var masterKey: String?
    /// `GATEHOUSE_READ_ONLY_MASTER_KEY`: when set, requests presenting it read as the master key
    /// does, and every mutation they send is refused.
    public var readOnlyMasterKey: String? = nil
    /// `GATEHOUSE_SECURITY_NOTICES`: whether users are mailed about changes to their account's
    /// security (a sign-in from a new device, two-step verification on or off, a recovery code
    /// used, a passkey added or removed, the account disabled).
    public var securityNotices: Bool = true
    public var accounts: AccountPolicy
    /// `GATEHOUSE_MFA`: whether users may, or must, have a second factor.
    public var mfa: SecondFactorMode
    /// The WebAuthn relying party of passkeys (`GATEHOUSE_WEBAUTHN_RP_ID`, `GATEHOUSE_WEBAUTHN_ORIGINS`,
    /// `GATEHOUSE_APP_NAME`); nil: the host and origin of `accounts.publicURL`, named "Gatehouse".
    public var relyingParty: RelyingParty?
    /// The fields the app declares on users (`GATEHOUSE_USER_FIELDS`) and their rules.
    public var userFields: UserFields
    /// Access tokens: audiences, lifetime, signing algorithm and key rotation (issued by `accounts.publicURL`).
    public var accessTokens: AccessTokenPolicy
    /// The OAuth 2.1 / OpenID Connect provider: its clients, registration and limits.
    public var oauth: OAuthPolicy

    public init(
        sessionLength: Int = 365 * 24 * 3600, passwordPolicy: PasswordPolicy = PasswordPolicy(),
        rateLimits: RateLimitPolicy = RateLimitPolicy(), lockout: LockoutPolicy? = nil, masterKey: String? = nil,
        accounts: AccountPolicy = AccountPolicy(), mfa: SecondFactorMode = .optional, relyingParty: RelyingParty? = nil,
        userFields: UserFields = .none, accessTokens: AccessTokenPolicy = AccessTokenPolicy(), oauth: OAuthPolicy = OAuthPolicy()
    ) {
        self.sessionLength = sessionLength
        self.passwordPolicy = passwordPolicy
        self.rateLimits = rateLimits
        self.lockout = lockout
        self.masterKey = masterKey
        self.accounts = accounts
        self.mfa = mfa
        self.relyingParty = relyingParty
        self.userFields = userFields
        self.accessTokens = accessTokens
        self.oauth = oauth
    }

    /// The relying party for `publicURL`: `id` or else the URL's host, `origins` or else the
    /// URL's origin (`scheme://host[:port]`).
    public static func relyingParty(publicURL: String, name: String, id: String? = nil, origins: Set<String>? = nil) -> RelyingParty {
        let components = URLComponents(string: publicURL)
        let host = components?.host ?? "localhost"
        var origin = "\(components?.scheme ?? "http")://\(host.contains(":") ? "[\(host)]" : host)"
        if let port = components?.port { origin += ":\(port)" }
        return RelyingParty(id: id ?? host, name: name, origins: origins ?? [origin])
    }
}

/// `GATEHOUSE_MFA` (docs/second-factors.md).
public enum SecondFactorMode: String, Sendable, Hashable, CaseIterable {
    /// No second factors: `authData.mfa` is refused with 252.
    case off
    /// Users may enrol one.
    case optional
    /// A session made without a second factor may only enrol one (and read `viewer`, log out):
    /// everything else answers 206 `Second factor enrolment required.`
    case required
}

/// The account lifecycle's settings (docs/accounts.md).
public struct AccountPolicy: Sendable, Hashable {
    /// `GATEHOUSE_VERIFY_EMAILS`.
    public enum EmailVerification: String, Sendable, Hashable, CaseIterable {
        /// Verification mail only when asked for (`sendVerificationEmail`).
        case off
        /// Also at sign-up and on every email change.
        case on
        /// As `on`, and an unverified email cannot log in (205).
        case required
    }

    public var verifyEmails: EmailVerification
    /// Seconds a verification link works.
    public var verifyTokenLifetime: Int
    /// Seconds a reset link works.
    public var resetTokenLifetime: Int
    /// Seconds after log-in during which password/email changes and deletion need no
    /// `currentPassword`; 0 turns the requirement off.
    public var recentAuthentication: Int
    /// Seconds of non-use after which a session expires; 0: never.
    public var sessionIdleTimeout: Int
    /// The base of links in mail (`GATEHOUSE_PUBLIC_URL`), without a trailing slash.
    public var publicURL: String
    /// Messages of one kind to one address per hour; past that, mutations answer ok and send nothing.
    public var messagesPerAddressPerHour: Int

    public init(
        verifyEmails: EmailVerification = .off, verifyTokenLifetime: Int = 86_400, resetTokenLifetime: Int = 3600,
        recentAuthentication: Int = 300, sessionIdleTimeout: Int = 0, publicURL: String = "http://127.0.0.1:1337",
        messagesPerAddressPerHour: Int = 3
    ) {
        self.verifyEmails = verifyEmails
        self.verifyTokenLifetime = verifyTokenLifetime
        self.resetTokenLifetime = resetTokenLifetime
        self.recentAuthentication = recentAuthentication
        self.sessionIdleTimeout = sessionIdleTimeout
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.messagesPerAddressPerHour = messagesPerAddressPerHour
    }
}

/// Password rules (better than Parse, which has none by default).
public struct PasswordPolicy: Sendable {
    /// Fewest characters (Unicode characters); 1 for Parse-compatible deployments.
    public var minimumLength: Int
    /// Most UTF-8 bytes; longer passwords would only cost hashing time.
    public var maximumBytes: Int
    /// The operator's file of breached passwords' SHA-1 hashes (`GATEHOUSE_PASSWORD_BLOCKLIST`),
    /// refused like the built-in list; nil: the built-in list only.
    public var blocklist: PasswordBlocklist?

    public init(minimumLength: Int = 8, maximumBytes: Int = 1024, blocklist: PasswordBlocklist? = nil) {
        self.minimumLength = minimumLength
        self.maximumBytes = maximumBytes
        self.blocklist = blocklist
    }

    /// Whether the password's length is within the policy.
    public func accepts(_ password: String) -> Bool {
        password.count >= minimumLength && password.utf8.count <= maximumBytes
    }

    /// Whether `password` is on the built-in list of common passwords (compared lower-cased) or
    /// in the blocklist (exactly: the corpus hashes each password as it was). Offline: nothing
    /// of the password leaves the machine.
    public func isCommon(_ password: String) -> Bool {
        CommonPasswords.contains(password) || (blocklist?.contains(password: password) ?? false)
    }
}

/// Attempt limits for sign-up and log-in, counted per field execution. 0 turns a
/// limit off.
public struct RateLimitPolicy: Sendable, Hashable {
    /// signUp and logIn attempts per client address per `addressWindow` seconds.
    public var perAddress: Int
    public var addressWindow: Int
    /// logIn attempts per account (the username or email it names) per `accountWindow` seconds.
    public var perAccount: Int
    public var accountWindow: Int

    public init(perAddress: Int = 100, addressWindow: Int = 60, perAccount: Int = 10, accountWindow: Int = 15 * 60) {
        self.perAddress = perAddress
        self.addressWindow = addressWindow
        self.perAccount = perAccount
        self.accountWindow = accountWindow
    }
}

/// Parse's account lockout: after `threshold` failed log-ins the account refuses
/// log-in for `duration` minutes, even with the right password.
public struct LockoutPolicy: Sendable, Hashable {
    public var threshold: Int
    public var durationMinutes: Int

    public init(threshold: Int, durationMinutes: Int) {
        self.threshold = threshold
        self.durationMinutes = durationMinutes
    }
}
