import Foundation
import Postgres
import Providers
import Sodium

/// The auth domain wired together: one ``AuthCore`` and the services per feature over it, each
/// owning its stores and batchers, built from a pool, the hashing pool and one ``Options`` value.
/// Callers reach a feature through its service (`auth.sessions.logIn(…)`,
/// `auth.accounts.updateUser(…)`).
public final class AuthService: Sendable {
    /// The configuration, database funnel, hashing, limits, clock and logs every feature shares.
    public let core: AuthCore
    /// Sign-up, log-in, log-out, the viewer, and the sessions a user can list and end.
    public let sessions: SessionService
    /// Password reset, email verification, account changes and deletion, reading a user.
    public let accounts: AccountService
    /// `logInWith`, provider links, `User.authData`.
    public let providers: ProviderService
    /// TOTP and recovery codes.
    public let secondFactors: SecondFactorService
    /// Passkey registration and log-in.
    public let passkeys: PasskeyService
    /// Access tokens, their signing keys and introspection.
    public let tokens: AccessTokenService
    /// The OAuth 2.1 / OpenID Connect provider: clients, codes, the token endpoint, the user's apps.
    public let oauth: OAuthService
    /// What operators do with the master keys: find users, disable them, end their sessions, `logInAs`.
    public let operators: OperatorService
    /// The audit log and webhook deliveries, for operators and for a user's own security events.
    public let audit: AuditService

    /// What an ``AuthService`` is built with beside its pools; every option has a default, so
    /// a caller sets only what it needs.
    public struct Options: Sendable {
        /// Policies: sessions, passwords, limits, lockout, accounts and mail, second factors, passkeys.
        public var configuration: AuthConfiguration
        /// Keys each rate limiter keeps (``RateLimiter/defaultCapacity``).
        public var limiterCapacity: Int
        /// Recently seen sessions (nil: every viewer asks the database).
        public var sessionCache: SessionCache?
        /// Third-party log-in (`logInWith`, linking); nil: none, every provider is unsupported.
        public var providers: ProviderRegistry?
        /// Batches each lookup batcher (viewer, provider and passkey log-ins) may run at once.
        public var sessionLookupBatches: Int
        /// Seals TOTP secrets (a key from `GATEHOUSE_SECRET_KEY`); nil: enrolment fails with an internal error.
        public var totpBox: SecretBox?
        /// Seals the links of reset and verification mail in the outbox (a key from
        /// `GATEHOUSE_SECRET_KEY`, purpose `mailLinks`); whoever delivers the mail opens them with
        /// the same. Nil: sending a link mail fails with an internal error.
        public var linkBox: SecretBox?
        /// Seals the private keys that sign access tokens (a key from `GATEHOUSE_SECRET_KEY`,
        /// purpose `signingKeys`); nil: no key can be made or opened, and `accessToken` fails with
        /// an internal error.
        public var keyBox: SecretBox?
        /// A standby that answers viewer lookups while it is current (`GATEHOUSE_READ_DATABASE_URL`); nil: the primary.
        public var readPool: Pool?
        /// Hears when the standby stops or starts serving lookups.
        public var onStandbyChange: @Sendable (StandbyReads.Event) -> Void
        /// The clock of sessions, tokens, limits and TOTP steps.
        public var now: @Sendable () -> Date
        /// Reports internal errors' details (never shown to clients).
        public var log: @Sendable (String) -> Void
        /// Says why a credential was refused (a provider token, a passkey); nil: `log`.
        public var refused: (@Sendable (String) -> Void)?
        /// Where the changes of the event catalogue are recorded (the webhook endpoints and the
        /// events each takes); none: nothing is recorded.
        public var events: EventLog
        /// `beforeSignUp` and `beforeLogIn` (`GATEHOUSE_HOOKS`); nil: none.
        public var hooks: AuthHooks?

        public init(
            configuration: AuthConfiguration = AuthConfiguration(), limiterCapacity: Int = RateLimiter.defaultCapacity,
            sessionCache: SessionCache? = nil, providers: ProviderRegistry? = nil,
            sessionLookupBatches: Int = AuthService.defaultSessionLookupBatches, totpBox: SecretBox? = nil, linkBox: SecretBox? = nil,
            keyBox: SecretBox? = nil, readPool: Pool? = nil, onStandbyChange: @escaping @Sendable (StandbyReads.Event) -> Void = { _ in },
            now: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void = { _ in },
            refused: (@Sendable (String) -> Void)? = nil, events: EventLog = EventLog(), hooks: AuthHooks? = nil
        ) {
            self.configuration = configuration
            self.limiterCapacity = limiterCapacity
            self.sessionCache = sessionCache
            self.providers = providers
            self.sessionLookupBatches = sessionLookupBatches
            self.totpBox = totpBox
            self.linkBox = linkBox
            self.keyBox = keyBox
            self.readPool = readPool
            self.onStandbyChange = onStandbyChange
            self.now = now
            self.log = log
            self.refused = refused
            self.events = events
            self.hooks = hooks
        }
    }

    /// The services over `pool` (and `options.readPool` for viewer lookups), hashing with `hashing`.
    public init(pool: Pool, hashing: PasswordHashingPool, options: Options = Options()) {
        let core = AuthCore(pool: pool, hashing: hashing, options: options)
        self.core = core
        let secondFactors = SecondFactorService(core: core, pool: pool, totpBox: options.totpBox)
        self.secondFactors = secondFactors
        let sessions = SessionService(
            core: core, secondFactors: secondFactors, pool: pool, readPool: options.readPool,
            onStandbyChange: options.onStandbyChange)
        self.sessions = sessions
        let tokens = AccessTokenService(core: core, sessions: sessions, secondFactors: secondFactors, pool: pool, keyBox: options.keyBox)
        self.tokens = tokens
        self.oauth = OAuthService(core: core, sessions: sessions, secondFactors: secondFactors, tokens: tokens, pool: pool)
        let providers = ProviderService(core: core, secondFactors: secondFactors, pool: pool, providers: options.providers)
        self.providers = providers
        self.accounts = AccountService(core: core, secondFactors: secondFactors, providers: providers, pool: pool)
        self.passkeys = PasskeyService(core: core, secondFactors: secondFactors, pool: pool)
        self.operators = OperatorService(core: core, pool: pool)
        self.audit = AuditService(core: core, pool: pool)
    }

    /// Viewer lookups that may run at once (each for up to 64 tokens): the cores, at least 2.
    /// Fewer, fuller batches cost the database less per lookup; more of them cut the wait. A
    /// second one starts only when a full batch waits behind the one running.
    public static var defaultSessionLookupBatches: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
}
