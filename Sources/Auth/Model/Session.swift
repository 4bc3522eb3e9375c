import Foundation

/// A session as the API shows it (`Session`): one signed-in device or app. Its token is never
/// kept, only the token's SHA-256 digest.
public struct Session: Sendable, Hashable {
    /// 10 characters from [A-Za-z0-9].
    public var objectId: String
    public var createdAt: Date
    public var updatedAt: Date
    public var expiresAt: Date
    /// When the token was last used, written at most once per ``lastUseResolution``.
    public var lastUsedAt: Date
    public var installationId: String?
    /// `signup` or `login`.
    public var action: String
    /// `password`, or the provider of logInWith (`anonymous`, `google`, …).
    public var authProvider: String
    /// The User-Agent of the request that created it, cut to ``userAgentLimit`` characters.
    public var userAgent: String?
    /// What the log-in that made it proved (`createdWith.factors`): `["password"]`,
    /// `["password", "totp"]`, `["passkey"]`, `["passkey-unverified"]` (a passkey whose
    /// authenticator did not verify its user: no second factor), or a provider's name for logInWith.
    public var factors: [String]

    public init(
        objectId: String, createdAt: Date, updatedAt: Date, expiresAt: Date, lastUsedAt: Date,
        installationId: String?, action: String, authProvider: String, userAgent: String?, factors: [String]? = nil
    ) {
        self.objectId = objectId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.installationId = installationId
        self.action = action
        self.authProvider = authProvider
        self.userAgent = userAgent
        self.factors = factors ?? [authProvider]
    }

    /// The factors that are a second factor: a session made with one of them satisfies
    /// `GATEHOUSE_MFA=required` and may remove a second factor.
    public static let secondFactors: Set<String> = ["totp", "passkey"]

    /// Whether the log-in that made it proved a second factor (``secondFactors``).
    public var hasSecondFactor: Bool { factors.contains(where: Self.secondFactors.contains) }

    /// The Relay global id: standard base64 of `"_Session:" + objectId` (as Parse).
    public var globalId: String { GlobalID.encode(type: "_Session", id: objectId) }

    /// `lastUsedAt` is at most this many seconds behind the last use.
    public static let lastUseResolution: TimeInterval = 300
    /// The longest User-Agent kept, in characters.
    public static let userAgentLimit = 256
}
