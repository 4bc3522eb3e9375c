import Auth
import Foundation
import HTTPServer
import IPNetworks
import JWT
import Sodium

/// Every setting of the server, from flags and the environment (flags win).
public struct Settings: Sendable, Hashable {
    public var databaseURL: String? = nil
    /// A streaming standby of `databaseURL` for viewer lookups (see `StandbyReads`); nil: none.
    public var readDatabaseURL: String? = nil
    public var dataDirectory = "./.gatehouse"
    public var host = "127.0.0.1"
    public var port = 1337
    public var appId: String? = nil
    public var masterKey: String? = nil
    /// Reads what the master key reads; every mutation sent with it is refused.
    public var readOnlyMasterKey: String? = nil
    /// Mail users about changes to their account's security.
    public var securityNotices = true
    /// Serve the operators' console at `/admin`.
    public var adminConsole = true
    public var sessionLength = 365 * 24 * 3600
    public var passwordMinLength = 8
    public var passwordMaxBytes = 1024
    public var passwordBlocklist: String? = nil
    /// Third-party log-in providers: JSON, or `@/path/file.json`; nil: anonymous users only.
    public var authProviders: String? = nil
    /// The fields the app declares on users: `@/path/file.graphql`, or the SDL itself; nil: none.
    public var userFields: String? = nil
    public var rateLimitPerAddress = 100
    public var rateLimitPerAccount = 10
    public var lockoutThreshold = 0
    public var lockoutMinutes = 5
    public var sessionCache = true
    public var sessionCacheSize = 10_000
    public var sessionCacheTTL = 30.0
    public var hashCost = "interactive"
    public var hashWorkers = ProcessInfo.processInfo.activeProcessorCount
    /// Seconds a hash may expect to wait for a worker (see `PasswordHashingPool`): a burst of
    /// sign-ups waits, a flood gets 155; waiting jobs hold no hash memory.
    public var hashMaxWait = 5.0
    public var poolSize = 10
    public var sessionLookupBatches = AuthService.defaultSessionLookupBatches
    public var poolTimeout = 5.0
    /// Seconds start-up waits for a writable database (see `DatabaseWait`).
    public var databaseWait = 60.0
    /// 0: LISTEN/NOTIFY and session advisory locks; above 0: polling with this staleness bound.
    public var pollInterval = 0.0
    public var statementTimeout = 10_000
    public var httpThreads = ProcessInfo.processInfo.activeProcessorCount
    public var httpBlockingThreads = 256
    public var maxConnections = 1000
    public var connectionTimeout = 30
    public var requestTimeout = 15
    public var maxConnectionsPerAddress = 32
    public var maxBodySize = 256 * 1024
    public var maxDocumentSize = 64 * 1024
    public var maxTokens = 10_000
    public var maxDepth = 20
    public var maxAliases = 50
    public var maxRootFields = 20
    public var corsOrigins: [String] = []
    public var trustedProxies: [IPNetwork] = []
    /// Base of the links in mail; nil: `http://<host>:<port>` of the listener.
    public var publicURL: String? = nil
    public var appName = "Gatehouse"
    /// The passkeys' relying party id; nil: the host of the public URL.
    public var webAuthnRPID: String? = nil
    /// Origins passkey ceremonies may run on; empty: the origin of the public URL.
    public var webAuthnOrigins: [String] = []
    public var smtpURL: String? = nil
    public var smtpCAFile: String? = nil
    /// The From header; nil: `<app name> <no-reply@localhost>`.
    public var mailFrom: String? = nil
    public var devMailbox = DevMailboxMode.auto
    public var verifyEmails = AccountPolicy.EmailVerification.off
    public var verifyTokenTTL = 86_400
    public var resetTokenTTL = 3600
    /// Messages of one kind to one address per hour (the contract's 3).
    public var mailPerAddressHour = 3
    public var mailRetryBase = 5
    public var recentAuth = 300
    public var sessionIdleTimeout = 0
    public var mfa = SecondFactorMode.optional
    /// The audiences access tokens may be asked for, the default first; empty: the issuer.
    public var accessTokenAudiences: [String] = []
    public var accessTokenTTL = 300
    public var accessTokenAlgorithm = SigningAlgorithm.es256
    public var signingKeyRotationDays = 30
    /// 64 hex characters; nil: the embedded default's key file (an external database needs one).
    public var secretKey: String? = nil
    public var logLevel = LogLevel.info
    public var shutdownTimeout = 10.0
    /// The OAuth provider's static clients: JSON, or `@/path/file.json`; nil: none.
    public var oauthClients: String? = nil
    public var oauthDynamicRegistration = false
    public var oauthTokenRateLimit = 600
    /// Webhook endpoints: JSON, or `@/path/file.json`; nil: none (no event is recorded).
    public var webhooks: String? = nil
    /// `beforeSignUp` and `beforeLogIn` hooks: JSON, or `@/path/file.json`; nil: none.
    public var hooks: String? = nil
    /// Whether every change and failed log-in is appended to the tamper-evident audit log.
    public var auditLog = true
    /// Days audit entries are kept; older ones are pruned, the cut recorded in each chain.
    public var auditRetentionDays = 365

    public init() {}

}

/// A setting's names, documentation and parser: the single source of `--help`, the table of
/// `gatehouse settings --markdown` (docs/settings.md) and the tests that check
/// docker-compose.yml and the Dockerfile.
public struct SettingSpec: Sendable {
    public let flag: String
    public let environment: String
    public let placeholder: String
    /// What the setting does, with code between backquotes (see `Settings.specs`).
    public let summary: String
    /// The default in words, for a default that depends on the machine (e.g. "one per core");
    /// nil: ``defaultText``, the same everywhere.
    public let documentedDefault: String?
    let apply: @Sendable (inout Settings, String) throws(SettingsError) -> Void
    let current: @Sendable (Settings) -> String

    /// The default on this machine, as shown in help.
    public var defaultText: String { current(Settings()) }
}

/// A setting with a bad value, or an unknown flag.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Settings {
    /// Every setting, in the order `--help` and docs/settings.md list them. A summary is one
    /// sentence or a few, with code (names, values, commands) between backquotes: the docs show
    /// it as code, `--help` drops the backquotes.
    public static let specs: [SettingSpec] = [
        text("database-url", "DATABASE_URL", "URL", "PostgreSQL connection URI or conninfo; unset: the embedded database",
             { $0.databaseURL = $1.isEmpty ? nil : $1 }, { $0.databaseURL ?? "(embedded)" }),
        text("read-database-url", "GATEHOUSE_READ_DATABASE_URL", "URL",
             "A streaming standby of `DATABASE_URL` for session lookups that miss the cache, used while it has replayed all the primary had committed when the lookup began; else the primary answers. Unset: the primary only",
             { $0.readDatabaseURL = $1.isEmpty ? nil : $1 }, { $0.readDatabaseURL == nil ? "(none)" : "(set)" }),
        text("data-dir", "GATEHOUSE_DATA_DIR", "PATH", "Directory of the embedded database",
             { $0.dataDirectory = $1 }, { $0.dataDirectory }),
        text("host", "GATEHOUSE_HOST", "ADDRESS", "Address to listen on (`0.0.0.0` for all interfaces)",
             { $0.host = $1 }, { $0.host }),
        integer("port", "GATEHOUSE_PORT", "Port to listen on; `0` picks a free port", 0...65535, \.port),
        text("app-id", "GATEHOUSE_APP_ID", "ID", "Required `X-Parse-Application-Id`; unset: not checked",
             { $0.appId = $1.isEmpty ? nil : $1 }, { $0.appId ?? "(none)" }),
        text("master-key", "GATEHOUSE_MASTER_KEY", "KEY", "Master key (`X-Parse-Master-Key`); unset: no master access",
             { $0.masterKey = $1.isEmpty ? nil : $1 }, { $0.masterKey == nil ? "(none)" : "(set)" }),
        integer("session-length", "GATEHOUSE_SESSION_LENGTH", "Session lifetime in seconds", 1...(100 * 365 * 86400), \.sessionLength),
        integer("password-min-length", "GATEHOUSE_PASSWORD_MIN_LENGTH", "Shortest password accepted (characters; `1` for Parse compatibility)", 1...1024, \.passwordMinLength),
        integer("password-max-bytes", "GATEHOUSE_PASSWORD_MAX_BYTES", "Longest password accepted (UTF-8 bytes)", 1...65536, \.passwordMaxBytes),
        text("password-blocklist", "GATEHOUSE_PASSWORD_BLOCKLIST", "PATH",
             "File of breached passwords' SHA-1 hashes (the Pwned Passwords download: `HASH` or `HASH:COUNT` lines, sorted by hash), refused with 142 as too common; unset: the built-in list only",
             { $0.passwordBlocklist = $1.isEmpty ? nil : $1 }, { $0.passwordBlocklist ?? "(none)" }),
        text("auth-providers", "GATEHOUSE_AUTH_PROVIDERS", "JSON",
             "`logInWith` providers: JSON, or `@/path/file.json` (`anonymous`, `google`, `apple`, any OpenID Connect provider)",
             { $0.authProviders = $1.isEmpty ? nil : $1 }, { $0.authProviders ?? "{\"anonymous\": {\"enabled\": true}}" }),
        text("user-fields", "GATEHOUSE_USER_FIELDS", "SDL",
             "Fields the app declares on users: `@/path/user-fields.graphql`, or the SDL itself: enums and `extend type User { … }` with `@maxLength`, `@maxItems`, `@maxBytes`, `@serverOnly`, `@hidden` and `@claim`, checked at start-up; unset: `displayName` and `photoURL` only",
             { $0.userFields = $1.isEmpty ? nil : $1 }, { $0.userFields ?? "(none)" }),
        integer("rate-limit-address", "GATEHOUSE_RATE_LIMIT_ADDRESS", "`signUp` and `logIn` attempts per client network (IPv4 address, IPv6 /64) per minute, per instance; `0`: off", 0...1_000_000, \.rateLimitPerAddress),
        integer("rate-limit-account", "GATEHOUSE_RATE_LIMIT_ACCOUNT", "`logIn` attempts per account and client network per 15 minutes, 10 times that over all networks; shared by instances; `0`: off", 0...1_000_000, \.rateLimitPerAccount),
        integer("lockout-threshold", "GATEHOUSE_LOCKOUT_THRESHOLD", "Failed log-ins that lock an account; `0`: lockout off", 0...1000, \.lockoutThreshold),
        integer("lockout-duration", "GATEHOUSE_LOCKOUT_DURATION", "Minutes an account stays locked", 1...100_000, \.lockoutMinutes),
        boolean("session-cache", "GATEHOUSE_SESSION_CACHE", "Cache recently seen sessions per instance, invalidated through PostgreSQL `LISTEN/NOTIFY`", \.sessionCache),
        integer("session-cache-size", "GATEHOUSE_SESSION_CACHE_SIZE", "Most sessions cached per instance", 1...10_000_000, \.sessionCacheSize),
        decimal("session-cache-ttl", "GATEHOUSE_SESSION_CACHE_TTL", "Seconds a cached session is trusted without the database", 0.1...3600, \.sessionCacheTTL),
        text("hash-cost", "GATEHOUSE_HASH_COST", "COST", "argon2id cost: `interactive`, `moderate` or `minimum` (tests only)", { settings, value throws(SettingsError) in
            guard ["interactive", "moderate", "minimum"].contains(value) else {
                throw SettingsError("GATEHOUSE_HASH_COST (--hash-cost) must be interactive, moderate or minimum, not \"\(value)\".")
            }
            settings.hashCost = value
        }, { $0.hashCost }),
        integer("hash-workers", "GATEHOUSE_HASH_WORKERS", "Password hashing threads (each hash holds 64 MiB)", 1...256, \.hashWorkers,
                documentedDefault: "one per core"),
        decimal("hash-max-wait", "GATEHOUSE_HASH_MAX_WAIT", "Seconds a password hash may expect to wait for a worker; a longer wait is refused at once with error 155", 0...3600, \.hashMaxWait),
        integer("pool-size", "GATEHOUSE_POOL_SIZE", "PostgreSQL connections per instance", 1...1000, \.poolSize),
        integer("session-lookup-batches", "GATEHOUSE_SESSION_LOOKUP_BATCHES", "Viewer database lookups run at once; concurrent requests share them (up to 64 tokens each), and another starts only when 64 wait", 1...1000, \.sessionLookupBatches,
                documentedDefault: "one per core, at least 2"),
        decimal("pool-timeout", "GATEHOUSE_POOL_TIMEOUT", "Seconds to wait for a database connection, free or new, before failing (libpq's `connect_timeout`, at least 2, unless the connection string sets one)", 0.1...300, \.poolTimeout),
        decimal("database-wait", "GATEHOUSE_DATABASE_WAIT", "Seconds start-up and migrations wait for a writable database (unreachable or read-only, e.g. during a failover), trying again with a short back-off; then the start fails. `0`: try once", 0...3600, \.databaseWait),
        decimal("poll-interval", "GATEHOUSE_POLL_INTERVAL", "`0`: other instances' changes arrive by PostgreSQL `LISTEN/NOTIFY` and migrations take a session advisory lock. Above `0`, for engines without them (YugabyteDB, CockroachDB): seconds a session ended on another instance may still be served from this one's cache (its TTL is cut to this) and mail written there may wait; migrations take a row lock", 0...3600, \.pollInterval),
        integer("statement-timeout", "GATEHOUSE_STATEMENT_TIMEOUT", "PostgreSQL `statement_timeout` in milliseconds", 1...3_600_000, \.statementTimeout),
        integer("http-threads", "GATEHOUSE_HTTP_THREADS", "HTTP event threads (epoll), each serving many connections; requests that block (log-ins, database lookups) run elsewhere. `0`: one thread per connection", 0...1024, \.httpThreads,
                documentedDefault: "one per core"),
        integer("http-blocking-threads", "GATEHOUSE_HTTP_BLOCKING_THREADS", "Most threads for requests that block (sign-ups, log-ins, log-outs, `/ready`); more wait", 1...100_000, \.httpBlockingThreads),
        integer("max-connections", "GATEHOUSE_MAX_CONNECTIONS", "Concurrent HTTP connections", 1...100_000, \.maxConnections),
        integer("connection-timeout", "GATEHOUSE_CONNECTION_TIMEOUT", "Seconds an idle HTTP connection is kept", 1...3600, \.connectionTimeout),
        integer("request-timeout", "GATEHOUSE_REQUEST_TIMEOUT", "Seconds within which a request's headers and body must arrive, however slowly they trickle; then the connection is closed", 1...3600, \.requestTimeout),
        integer("max-connections-per-address", "GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS", "Concurrent HTTP connections per client address (an IPv6 /64); trusted proxies are not counted", 1...100_000, \.maxConnectionsPerAddress),
        integer("max-body-size", "GATEHOUSE_MAX_BODY_SIZE", "Largest request body in bytes (413 above)", 1024...(64 << 20), \.maxBodySize),
        integer("max-document-size", "GATEHOUSE_MAX_DOCUMENT_SIZE", "Largest GraphQL document in bytes (413 above)", 256...(16 << 20), \.maxDocumentSize),
        integer("max-tokens", "GATEHOUSE_MAX_TOKENS", "Most tokens in a GraphQL document", 100...1_000_000, \.maxTokens),
        integer("max-depth", "GATEHOUSE_MAX_DEPTH", "Deepest field nesting (through fragments)", 1...1000, \.maxDepth),
        integer("max-aliases", "GATEHOUSE_MAX_ALIASES", "Most aliases in a document", 0...100_000, \.maxAliases),
        integer("max-root-fields", "GATEHOUSE_MAX_ROOT_FIELDS", "Most root fields in an operation", 1...100_000, \.maxRootFields),
        text("cors-origins", "GATEHOUSE_CORS_ORIGINS", "LIST", "Comma-separated allowed browser origins, or `*`; unset: CORS off",
             { $0.corsOrigins = $1.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } },
             { $0.corsOrigins.isEmpty ? "(none)" : $0.corsOrigins.joined(separator: ",") }),
        text("trusted-proxies", "GATEHOUSE_TRUSTED_PROXIES", "CIDRS", "Comma-separated proxy networks (e.g. `10.0.0.0/8`, `2001:db8::1`: a bare address is that address alone) whose `X-Forwarded-For` names the client; unset: none",
             { settings, value throws(SettingsError) in
                 var networks: [IPNetwork] = []
                 for entry in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
                     guard let network = IPNetwork(entry) else {
                         throw SettingsError("GATEHOUSE_TRUSTED_PROXIES (--trusted-proxies): \"\(entry)\" is not an IP address or CIDR network (e.g. 10.0.0.0/8 or 2001:db8::/64).")
                     }
                     networks.append(network)
                 }
                 settings.trustedProxies = networks
             },
             { $0.trustedProxies.isEmpty ? "(none)" : $0.trustedProxies.map(\.description).joined(separator: ",") }),
        text("public-url", "GATEHOUSE_PUBLIC_URL", "URL", "The address users reach the server at (`http://` or `https://`): the base of the links in mail and the passkeys' relying party; unset: `http://localhost:<port>` on a loopback listener (browsers refuse passkeys on an IP address), else `http://<host>:<port>` of the listener",
             { settings, value throws(SettingsError) in
                 if value.isEmpty { settings.publicURL = nil; return }
                 guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                     url.host?.isEmpty == false, url.query == nil, url.fragment == nil
                 else {
                     throw SettingsError("GATEHOUSE_PUBLIC_URL (--public-url) must be an http:// or https:// URL with a host and no query, not \"\(value)\".")
                 }
                 settings.publicURL = value
             }, { $0.publicURL ?? "(none)" }),
        text("app-name", "GATEHOUSE_APP_NAME", "NAME", "The product name shown in mail and pages, and the passkeys' relying party name",
             { settings, value throws(SettingsError) in
                 guard !value.isEmpty, value.count <= 100, !value.contains(where: { $0.isNewline || $0 == "\0" }) else {
                     throw SettingsError("GATEHOUSE_APP_NAME (--app-name) must be 1 to 100 characters on one line.")
                 }
                 settings.appName = value
             }, { $0.appName }),
        text("webauthn-rp-id", "GATEHOUSE_WEBAUTHN_RP_ID", "DOMAIN", "The passkeys' relying party id (a domain: passkeys work on it and its subdomains); unset: the host of `GATEHOUSE_PUBLIC_URL`",
             { settings, value throws(SettingsError) in
                 if value.isEmpty { settings.webAuthnRPID = nil; return }
                 let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
                 guard value.count <= 253, value.allSatisfy(allowed.contains), !value.hasPrefix("."), !value.hasSuffix(".") else {
                     throw SettingsError("GATEHOUSE_WEBAUTHN_RP_ID (--webauthn-rp-id) must be a lowercase domain name such as example.com, not \"\(value)\".")
                 }
                 settings.webAuthnRPID = value
             }, { $0.webAuthnRPID ?? "(none)" }),
        text("webauthn-origins", "GATEHOUSE_WEBAUTHN_ORIGINS", "ORIGINS",
             "Origins passkey ceremonies may run on, comma-separated (`https://…`, `android:apk-key-hash:…`); unset: the origin of `GATEHOUSE_PUBLIC_URL`",
             { settings, value throws(SettingsError) in
                 var origins: [String] = []
                 for entry in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
                     let web = entry.hasPrefix("https://") || entry.hasPrefix("http://")
                     guard web ? !entry.dropFirst(8).contains("/") : entry.hasPrefix("android:apk-key-hash:") else {
                         throw SettingsError("GATEHOUSE_WEBAUTHN_ORIGINS (--webauthn-origins): \"\(entry)\" is not an origin (https://host[:port] or android:apk-key-hash:…).")
                     }
                     origins.append(entry)
                 }
                 settings.webAuthnOrigins = origins
             }, { $0.webAuthnOrigins.isEmpty ? "(none)" : $0.webAuthnOrigins.joined(separator: ",") }),
        text("smtp-url", "GATEHOUSE_SMTP_URL", "URL", "`smtp://[user:password@]host[:port]` (STARTTLS required), `smtps://…`, or `smtp://host?tls=none` to a loopback host only; unset: mail stays in the outbox (see `GATEHOUSE_DEV_MAILBOX`)",
             { $0.smtpURL = $1.isEmpty ? nil : $1 }, { $0.smtpURL == nil ? "(none)" : "(set)" }),
        text("smtp-ca-file", "GATEHOUSE_SMTP_CA_FILE", "PATH", "CA certificates (PEM) to trust for the SMTP server besides the system's",
             { $0.smtpCAFile = $1.isEmpty ? nil : $1 }, { $0.smtpCAFile ?? "(none)" }),
        text("mail-from", "GATEHOUSE_MAIL_FROM", "ADDRESS", "The From header of mail; unset: `<app name> <no-reply@localhost>`",
             { $0.mailFrom = $1.isEmpty ? nil : $1 }, { $0.mailFrom ?? "<app name> <no-reply@localhost>" }),
        text("dev-mailbox", "GATEHOUSE_DEV_MAILBOX", "MODE",
             "The page `/_dev/mailbox` showing the outbox with its links, to requests from this machine only (a loopback address, no forwarding headers): `on`, `off` or `auto` (only with the embedded database and no SMTP server)",
             { settings, value throws(SettingsError) in
                 guard let mode = DevMailboxMode(rawValue: value) else {
                     throw SettingsError("GATEHOUSE_DEV_MAILBOX (--dev-mailbox) must be on, off or auto, not \"\(value)\".")
                 }
                 settings.devMailbox = mode
             }, { $0.devMailbox.rawValue }),
        text("verify-emails", "GATEHOUSE_VERIFY_EMAILS", "MODE", "`off` (verification mail when asked), `on` (also at sign-up and email change) or `required` (and unverified emails cannot log in)",
             { settings, value throws(SettingsError) in
                 guard let mode = AccountPolicy.EmailVerification(rawValue: value) else {
                     throw SettingsError("GATEHOUSE_VERIFY_EMAILS (--verify-emails) must be off, on or required, not \"\(value)\".")
                 }
                 settings.verifyEmails = mode
             }, { $0.verifyEmails.rawValue }),
        integer("verify-token-ttl", "GATEHOUSE_VERIFY_TOKEN_TTL", "Seconds a verification link works", 60...(365 * 86400), \.verifyTokenTTL),
        integer("reset-token-ttl", "GATEHOUSE_RESET_TOKEN_TTL", "Seconds a password reset link works", 60...(30 * 86400), \.resetTokenTTL),
        integer("mail-per-address-hour", "GATEHOUSE_MAIL_PER_ADDRESS_HOUR",
                "Messages of one kind (reset, verification, each notice) one address gets per hour at most; past that, the request answers as usual and sends nothing",
                1...1_000_000, \.mailPerAddressHour),
        integer("mail-retry-base", "GATEHOUSE_MAIL_RETRY_BASE", "Seconds before the first retry of a failed delivery; doubling, at most 10 minutes apart, for 24 hours", 1...600, \.mailRetryBase),
        integer("recent-auth", "GATEHOUSE_RECENT_AUTH", "Seconds after log-in during which password and email changes, provider links and unlinks, deletion and second-factor changes need no `currentPassword` (adding or removing a passkey needs a log-in this recent); `0`: never needed", 0...(365 * 86400), \.recentAuth),
        integer("session-idle-timeout", "GATEHOUSE_SESSION_IDLE_TIMEOUT", "Seconds of non-use after which a session expires; `0`: never", 0...(100 * 365 * 86400), \.sessionIdleTimeout),
        text("mfa", "GATEHOUSE_MFA", "MODE", "`off` (no second factors), `optional` (users may enrol TOTP) or `required` (a session without a second factor can only enrol one); empty: `optional`",
             { settings, value throws(SettingsError) in
                 guard let mode = value.isEmpty ? .optional : SecondFactorMode(rawValue: value) else {
                     throw SettingsError("GATEHOUSE_MFA (--mfa) must be off, optional or required, not \"\(value)\".")
                 }
                 settings.mfa = mode
             }, { $0.mfa.rawValue }),
        text("access-token-audiences", "GATEHOUSE_ACCESS_TOKEN_AUDIENCES", "LIST",
             "Comma-separated audiences (`aud`) access tokens may be asked for, the first the default; another gets error 142. Unset: the issuer (`GATEHOUSE_PUBLIC_URL`) alone",
             { settings, value throws(SettingsError) in
                 var audiences: [String] = []
                 for entry in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
                     guard !entry.contains(where: { $0.isNewline || $0 == "\0" }), entry.utf8.count <= 1024 else {
                         throw SettingsError("GATEHOUSE_ACCESS_TOKEN_AUDIENCES (--access-token-audiences): an audience must be one line of at most 1024 bytes.")
                     }
                     if !audiences.contains(entry) { audiences.append(entry) }
                 }
                 settings.accessTokenAudiences = audiences
             },
             { $0.accessTokenAudiences.isEmpty ? "(the issuer)" : $0.accessTokenAudiences.joined(separator: ",") }),
        integer("access-token-ttl", "GATEHOUSE_ACCESS_TOKEN_TTL", "Seconds an access token is valid", AccessTokenPolicy.lifetimes, \.accessTokenTTL),
        text("access-token-alg", "GATEHOUSE_ACCESS_TOKEN_ALG", "ALG",
             "The algorithm of access-token signing keys: `ES256` (P-256) or `RS256` (RSA-2048). After a change, a key of the new algorithm is made at start and signs 10 minutes later (the same rule as rotation); every instance must have the same",
             { settings, value throws(SettingsError) in
                 guard let algorithm = SigningAlgorithm(rawValue: value) else {
                     throw SettingsError("GATEHOUSE_ACCESS_TOKEN_ALG (--access-token-alg) must be ES256 or RS256, not \"\(value)\".")
                 }
                 settings.accessTokenAlgorithm = algorithm
             }, { $0.accessTokenAlgorithm.rawValue }),
        integer("signing-key-rotation-days", "GATEHOUSE_SIGNING_KEY_ROTATION_DAYS", "Days after which the access-token signing key is replaced (the next key is published at once and signs 10 minutes later); `0`: never (`gatehouse keys rotate` still does)", 0...3650, \.signingKeyRotationDays),
        text("secret-key", "GATEHOUSE_SECRET_KEY", "KEY", "64 hex characters (`openssl rand -hex 32`) from which the keys sealing TOTP secrets, the links of mail waiting in the outbox and the access-token signing keys are derived; the same on every instance, kept outside the database. Unset: generated into `<data directory>/secret-key` with the embedded database (required with `DATABASE_URL`)",
             { settings, value throws(SettingsError) in
                 if value.isEmpty { settings.secretKey = nil; return }
                 do { _ = try SecretBox(secretKey: value, purpose: .totp) } catch {
                     throw SettingsError("GATEHOUSE_SECRET_KEY (--secret-key) \(error).")
                 }
                 settings.secretKey = value
             }, { $0.secretKey == nil ? "(none)" : "(set)" }),
        text("log-level", "GATEHOUSE_LOG_LEVEL", "LEVEL", "`error`, `warn`, `info` or `debug`", { settings, value throws(SettingsError) in
            guard let level = LogLevel(rawValue: value) else {
                throw SettingsError("GATEHOUSE_LOG_LEVEL (--log-level) must be error, warn, info or debug, not \"\(value)\".")
            }
            settings.logLevel = level
        }, { $0.logLevel.rawValue }),
        decimal("shutdown-timeout", "GATEHOUSE_SHUTDOWN_TIMEOUT", "Seconds to finish in-flight requests on SIGTERM or SIGINT", 0...3600, \.shutdownTimeout),
        text("oauth-clients", "GATEHOUSE_OAUTH_CLIENTS", "JSON",
             "The apps that sign users in through Gatehouse with OAuth 2.1 / OpenID Connect: JSON, or `@/path/file.json`, an array of `{\"client_id\", \"client_secret\" (absent for a public client), \"redirect_uris\": [...], \"name\", \"scopes\": [\"openid\", \"profile\", \"email\", \"offline_access\"], \"first_party\": false, \"resources\": [...] (audiences of GATEHOUSE_ACCESS_TOKEN_AUDIENCES it may ask tokens for)}`; a mistake stops start-up naming the entry and field. Unset: none",
             { $0.oauthClients = $1.isEmpty ? nil : $1 }, { $0.oauthClients == nil ? "(none)" : "(set)" }),
        boolean("oauth-dynamic-registration", "GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION",
                "Let apps register themselves as OAuth clients (RFC 7591) at `POST /oauth/register`, rate-limited per client network as `signUp` is", \.oauthDynamicRegistration),
        integer("oauth-token-rate-limit", "GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT",
                "Requests to `/oauth/token`, `/oauth/revoke` and a client's `/oauth/introspect` per client network, and per confidential client once its secret is right, per minute, per instance (size it for the busiest client's backend, whose requests count against both); `0`: off",
                0...1_000_000, \.oauthTokenRateLimit),
        text("webhooks", "GATEHOUSE_WEBHOOKS", "JSON",
             "Webhook endpoints: JSON, or `@/path/file.json`: `[{\"url\": …, \"secret\": \"whsec_…\", \"events\": [\"user.created\", …] or [\"*\"]}]` (https, or http to a loopback address; `gatehouse webhooks secret` prints a secret). Events are delivered signed in the Standard Webhooks format, per user in order, retried for 3 days. Unset: none",
             { $0.webhooks = $1.isEmpty ? nil : $1 }, { $0.webhooks == nil ? "(none)" : "(set)" }),
        text("hooks", "GATEHOUSE_HOOKS", "JSON",
             "Hooks that may refuse a sign-up or log-in: JSON, or `@/path/file.json`: `{\"beforeSignUp\": {\"url\": …, \"secret\": \"whsec_…\", \"timeoutMs\": 2000, \"onError\": \"reject\"}, \"beforeLogIn\": {…}}`. Unset: none",
             { $0.hooks = $1.isEmpty ? nil : $1 }, { $0.hooks == nil ? "(none)" : "(set)" }),
        text("read-only-master-key", "GATEHOUSE_READ_ONLY_MASTER_KEY", "KEY",
             "Read-only master key (sent as `X-Parse-Master-Key`): reads what the master key reads, and every mutation sent with it is refused with 119; unset: none",
             { $0.readOnlyMasterKey = $1.isEmpty ? nil : $1 }, { $0.readOnlyMasterKey == nil ? "(none)" : "(set)" }),
        boolean("security-notices", "GATEHOUSE_SECURITY_NOTICES",
                "Mail users when their account is signed in to from a new device, two-step verification is turned on or off, a recovery code is used, a passkey is added or removed, or the account is disabled",
                \.securityNotices),
        boolean("admin-console", "GATEHOUSE_ADMIN_CONSOLE", "Serve the operators' console at `/admin` (it asks for the master key); off: `/admin` answers 404",
                \.adminConsole),
        boolean("audit-log", "GATEHOUSE_AUDIT_LOG",
                "Append every change of the event catalogue, each failed log-in and each master-key mutation to the tamper-evident audit log (`gatehouse audit verify` checks it); off: nothing is recorded there",
                \.auditLog),
        integer("audit-retention-days", "GATEHOUSE_AUDIT_RETENTION_DAYS",
                "Days audit entries are kept; older ones are pruned hourly, the cut recorded so `gatehouse audit verify` still passes",
                1...(100 * 365), \.auditRetentionDays),
    ]

    /// Settings that no longer exist and what replaced them: a deployment still setting one
    /// stops at start with a message naming the replacement, instead of running without it.
    static let removed: [(flag: String, environment: String, replacement: String)] = [
        ("hash-queue", "GATEHOUSE_HASH_QUEUE",
         "GATEHOUSE_HASH_MAX_WAIT (--hash-max-wait): hashing is admitted by the wait it would cause, not by a queue length"),
        ("trust-proxy", "GATEHOUSE_TRUST_PROXY",
         "GATEHOUSE_TRUSTED_PROXIES (--trusted-proxies), set to the load balancers' addresses or networks, e.g. 10.0.0.0/8"),
    ]

    /// Settings from `environment`, then `arguments` (`--name value` or `--name=value`; a value
    /// that starts with `--` needs the `=` form).
    public static func parse(arguments: [String], environment: [String: String]) throws(SettingsError) -> Settings {
        var settings = Settings()
        for old in removed where environment[old.environment] != nil
            || arguments.contains(where: { $0 == "--\(old.flag)" || $0.hasPrefix("--\(old.flag)=") })
        {
            throw SettingsError("\(old.environment) (--\(old.flag)) was removed; use \(old.replacement).")
        }
        for spec in specs {
            if let value = environment[spec.environment] { try spec.apply(&settings, value) }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw SettingsError("Unexpected argument \"\(argument)\"; see --help.") }
            var name = String(argument.dropFirst(2))
            var value: String? = nil
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.flag == name }) else {
                throw SettingsError("Unknown option --\(name); see --help.")
            }
            if value == nil {
                index += 1
                // A following flag is not a value: `--app-id --port 1` must not set the app id to "--port".
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw SettingsError("--\(name) needs a value (\(spec.placeholder)).")
                }
                value = arguments[index]
            }
            try spec.apply(&settings, value!)
            index += 1
        }
        if let readOnly = settings.readOnlyMasterKey, readOnly == settings.masterKey {
            throw SettingsError("GATEHOUSE_READ_ONLY_MASTER_KEY must differ from GATEHOUSE_MASTER_KEY: a request with it would get every right of the master key.")
        }
        if settings.passwordMinLength > settings.passwordMaxBytes {
            throw SettingsError("GATEHOUSE_PASSWORD_MIN_LENGTH (\(settings.passwordMinLength)) is larger than GATEHOUSE_PASSWORD_MAX_BYTES (\(settings.passwordMaxBytes)).")
        }
        return settings
    }

    // MARK: Spec builders

    private static func text(
        _ flag: String, _ environment: String, _ placeholder: String, _ summary: String,
        _ apply: @escaping @Sendable (inout Settings, String) throws(SettingsError) -> Void,
        _ current: @escaping @Sendable (Settings) -> String
    ) -> SettingSpec {
        SettingSpec(
            flag: flag, environment: environment, placeholder: placeholder, summary: summary, documentedDefault: nil,
            apply: apply, current: current)
    }

    private static func integer(
        _ flag: String, _ environment: String, _ summary: String, _ range: ClosedRange<Int>,
        _ keyPath: WritableKeyPath<Settings, Int> & Sendable, documentedDefault: String? = nil
    ) -> SettingSpec {
        number(flag, environment, "N", "a whole number", summary, range, keyPath, documentedDefault: documentedDefault)
    }

    private static func decimal(
        _ flag: String, _ environment: String, _ summary: String, _ range: ClosedRange<Double>,
        _ keyPath: WritableKeyPath<Settings, Double> & Sendable
    ) -> SettingSpec {
        number(flag, environment, "SECONDS", "a number", summary, range, keyPath)
    }

    /// A number setting within `range` (NaN is never within a range).
    private static func number<Number: LosslessStringConvertible & Comparable & Sendable>(
        _ flag: String, _ environment: String, _ placeholder: String, _ kind: String, _ summary: String,
        _ range: ClosedRange<Number>, _ keyPath: WritableKeyPath<Settings, Number> & Sendable,
        documentedDefault: String? = nil
    ) -> SettingSpec {
        SettingSpec(
            flag: flag, environment: environment, placeholder: placeholder, summary: summary,
            documentedDefault: documentedDefault,
            apply: { settings, value throws(SettingsError) in
                guard let number = Number(value.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                    throw SettingsError("\(environment) (--\(flag)) must be \(kind) from \(range.lowerBound) to \(range.upperBound), not \"\(value)\".")
                }
                settings[keyPath: keyPath] = number
            }, current: { String($0[keyPath: keyPath]) })
    }

    private static func boolean(
        _ flag: String, _ environment: String, _ summary: String, _ keyPath: WritableKeyPath<Settings, Bool> & Sendable
    ) -> SettingSpec {
        SettingSpec(
            flag: flag, environment: environment, placeholder: "BOOL", summary: summary, documentedDefault: nil,
            apply: { settings, value throws(SettingsError) in
                switch value.lowercased() {
                case "1", "true", "yes", "on": settings[keyPath: keyPath] = true
                case "0", "false", "no", "off": settings[keyPath: keyPath] = false
                default: throw SettingsError("\(environment) (--\(flag)) must be true or false, not \"\(value)\".")
                }
            }, current: { String($0[keyPath: keyPath]) })
    }
}
