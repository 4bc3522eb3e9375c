import IPNetworks
import Foundation
import HTTPServer
import Testing

@testable import GatehouseServer

/// One setting applied through its environment variable and through its flag.
struct SettingCase: Sendable, CustomTestStringConvertible {
    let flag: String
    let environment: String
    let value: String
    let applied: @Sendable (Settings) -> Bool

    init(_ flag: String, _ environment: String, _ value: String, _ applied: @escaping @Sendable (Settings) -> Bool) {
        self.flag = flag
        self.environment = environment
        self.value = value
        self.applied = applied
    }

    var testDescription: String { "--\(flag) / \(environment) = \(value)" }
}

/// Every spec, with a value different from its default. `everySpecHasACase` keeps it complete.
let settingCases: [SettingCase] = [
    SettingCase("database-url", "DATABASE_URL", "postgresql://u@h/db", { $0.databaseURL == "postgresql://u@h/db" }),
    SettingCase("read-database-url", "GATEHOUSE_READ_DATABASE_URL", "host=standby dbname=gh", { $0.readDatabaseURL == "host=standby dbname=gh" }),
    SettingCase("data-dir", "GATEHOUSE_DATA_DIR", "/var/lib/gh", { $0.dataDirectory == "/var/lib/gh" }),
    SettingCase("host", "GATEHOUSE_HOST", "0.0.0.0", { $0.host == "0.0.0.0" }),
    SettingCase("port", "GATEHOUSE_PORT", "8080", { $0.port == 8080 }),
    SettingCase("app-id", "GATEHOUSE_APP_ID", "myapp", { $0.appId == "myapp" }),
    SettingCase("master-key", "GATEHOUSE_MASTER_KEY", "s3cret", { $0.masterKey == "s3cret" }),
    SettingCase("session-length", "GATEHOUSE_SESSION_LENGTH", "3600", { $0.sessionLength == 3600 }),
    SettingCase("password-min-length", "GATEHOUSE_PASSWORD_MIN_LENGTH", "12", { $0.passwordMinLength == 12 }),
    SettingCase("password-max-bytes", "GATEHOUSE_PASSWORD_MAX_BYTES", "64", { $0.passwordMaxBytes == 64 }),
    SettingCase("auth-providers", "GATEHOUSE_AUTH_PROVIDERS", "@/etc/gatehouse/providers.json", { $0.authProviders == "@/etc/gatehouse/providers.json" }),
    SettingCase("user-fields", "GATEHOUSE_USER_FIELDS", "@/etc/gatehouse/user-fields.graphql", { $0.userFields == "@/etc/gatehouse/user-fields.graphql" }),
    SettingCase("password-blocklist", "GATEHOUSE_PASSWORD_BLOCKLIST", "/var/lib/gh/pwned.txt", { $0.passwordBlocklist == "/var/lib/gh/pwned.txt" }),
    SettingCase("rate-limit-address", "GATEHOUSE_RATE_LIMIT_ADDRESS", "0", { $0.rateLimitPerAddress == 0 }),
    SettingCase("rate-limit-account", "GATEHOUSE_RATE_LIMIT_ACCOUNT", "3", { $0.rateLimitPerAccount == 3 }),
    SettingCase("lockout-threshold", "GATEHOUSE_LOCKOUT_THRESHOLD", "5", { $0.lockoutThreshold == 5 }),
    SettingCase("lockout-duration", "GATEHOUSE_LOCKOUT_DURATION", "30", { $0.lockoutMinutes == 30 }),
    SettingCase("session-cache", "GATEHOUSE_SESSION_CACHE", "false", { !$0.sessionCache }),
    SettingCase("session-cache-size", "GATEHOUSE_SESSION_CACHE_SIZE", "77", { $0.sessionCacheSize == 77 }),
    SettingCase("session-cache-ttl", "GATEHOUSE_SESSION_CACHE_TTL", "1.5", { $0.sessionCacheTTL == 1.5 }),
    SettingCase("hash-cost", "GATEHOUSE_HASH_COST", "minimum", { $0.hashCost == "minimum" }),
    SettingCase("hash-workers", "GATEHOUSE_HASH_WORKERS", "7", { $0.hashWorkers == 7 }),
    SettingCase("hash-max-wait", "GATEHOUSE_HASH_MAX_WAIT", "0.5", { $0.hashMaxWait == 0.5 }),
    SettingCase("pool-size", "GATEHOUSE_POOL_SIZE", "3", { $0.poolSize == 3 }),
    SettingCase("pool-timeout", "GATEHOUSE_POOL_TIMEOUT", "2.5", { $0.poolTimeout == 2.5 }),
    SettingCase("database-wait", "GATEHOUSE_DATABASE_WAIT", "0", { $0.databaseWait == 0 }),
    SettingCase("poll-interval", "GATEHOUSE_POLL_INTERVAL", "1.5", { $0.pollInterval == 1.5 }),
    SettingCase("statement-timeout", "GATEHOUSE_STATEMENT_TIMEOUT", "500", { $0.statementTimeout == 500 }),
    SettingCase("http-threads", "GATEHOUSE_HTTP_THREADS", "6", { $0.httpThreads == 6 }),
    SettingCase("max-connections", "GATEHOUSE_MAX_CONNECTIONS", "50", { $0.maxConnections == 50 }),
    SettingCase("connection-timeout", "GATEHOUSE_CONNECTION_TIMEOUT", "9", { $0.connectionTimeout == 9 }),
    SettingCase("request-timeout", "GATEHOUSE_REQUEST_TIMEOUT", "4", { $0.requestTimeout == 4 }),
    SettingCase("max-connections-per-address", "GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS", "5", { $0.maxConnectionsPerAddress == 5 }),
    SettingCase("max-body-size", "GATEHOUSE_MAX_BODY_SIZE", "2048", { $0.maxBodySize == 2048 }),
    SettingCase("max-document-size", "GATEHOUSE_MAX_DOCUMENT_SIZE", "1000", { $0.maxDocumentSize == 1000 }),
    SettingCase("max-tokens", "GATEHOUSE_MAX_TOKENS", "500", { $0.maxTokens == 500 }),
    SettingCase("max-depth", "GATEHOUSE_MAX_DEPTH", "4", { $0.maxDepth == 4 }),
    SettingCase("max-aliases", "GATEHOUSE_MAX_ALIASES", "0", { $0.maxAliases == 0 }),
    SettingCase("max-root-fields", "GATEHOUSE_MAX_ROOT_FIELDS", "2", { $0.maxRootFields == 2 }),
    SettingCase("cors-origins", "GATEHOUSE_CORS_ORIGINS", " https://a.example , https://b.example,",
                { $0.corsOrigins == ["https://a.example", "https://b.example"] }),
    SettingCase("trusted-proxies", "GATEHOUSE_TRUSTED_PROXIES", "10.0.0.0/8, 2001:db8::1,",
                { $0.trustedProxies == [IPNetwork("10.0.0.0/8")!, IPNetwork("2001:db8::1/128")!] }),
    SettingCase("log-level", "GATEHOUSE_LOG_LEVEL", "debug", { $0.logLevel == .debug }),
    SettingCase("http-blocking-threads", "GATEHOUSE_HTTP_BLOCKING_THREADS", "12", { $0.httpBlockingThreads == 12 }),
    SettingCase("session-lookup-batches", "GATEHOUSE_SESSION_LOOKUP_BATCHES", "3", { $0.sessionLookupBatches == 3 }),
    SettingCase("shutdown-timeout", "GATEHOUSE_SHUTDOWN_TIMEOUT", "0.5", { $0.shutdownTimeout == 0.5 }),
    SettingCase("webhooks", "GATEHOUSE_WEBHOOKS", "@/etc/gatehouse/webhooks.json", { $0.webhooks == "@/etc/gatehouse/webhooks.json" }),
    SettingCase("hooks", "GATEHOUSE_HOOKS", "@/etc/gatehouse/hooks.json", { $0.hooks == "@/etc/gatehouse/hooks.json" }),
    SettingCase("public-url", "GATEHOUSE_PUBLIC_URL", "https://auth.example.com", { $0.publicURL == "https://auth.example.com" }),
    SettingCase("app-name", "GATEHOUSE_APP_NAME", "Acme Notes", { $0.appName == "Acme Notes" }),
    SettingCase("webauthn-rp-id", "GATEHOUSE_WEBAUTHN_RP_ID", "example.com", { $0.webAuthnRPID == "example.com" }),
    SettingCase("webauthn-origins", "GATEHOUSE_WEBAUTHN_ORIGINS", "https://example.com, android:apk-key-hash:abc",
                { $0.webAuthnOrigins == ["https://example.com", "android:apk-key-hash:abc"] }),
    SettingCase("smtp-url", "GATEHOUSE_SMTP_URL", "smtp://mail.example.com:587", { $0.smtpURL == "smtp://mail.example.com:587" }),
    SettingCase("smtp-ca-file", "GATEHOUSE_SMTP_CA_FILE", "/etc/ssl/private-ca.pem", { $0.smtpCAFile == "/etc/ssl/private-ca.pem" }),
    SettingCase("mail-from", "GATEHOUSE_MAIL_FROM", "Acme <no-reply@acme.example>", { $0.mailFrom == "Acme <no-reply@acme.example>" }),
    SettingCase("verify-emails", "GATEHOUSE_VERIFY_EMAILS", "required", { $0.verifyEmails == .required }),
    SettingCase("dev-mailbox", "GATEHOUSE_DEV_MAILBOX", "on", { $0.devMailbox == .on }),
    SettingCase("mfa", "GATEHOUSE_MFA", "required", { $0.mfa == .required }),
    SettingCase("access-token-audiences", "GATEHOUSE_ACCESS_TOKEN_AUDIENCES", " orders , billing,orders,, ", { $0.accessTokenAudiences == ["orders", "billing"] }),
    SettingCase("access-token-ttl", "GATEHOUSE_ACCESS_TOKEN_TTL", "900", { $0.accessTokenTTL == 900 }),
    SettingCase("access-token-alg", "GATEHOUSE_ACCESS_TOKEN_ALG", "RS256", { $0.accessTokenAlgorithm == .rs256 }),
    SettingCase("signing-key-rotation-days", "GATEHOUSE_SIGNING_KEY_ROTATION_DAYS", "0", { $0.signingKeyRotationDays == 0 }),
    SettingCase("oauth-clients", "GATEHOUSE_OAUTH_CLIENTS", "@/etc/gatehouse/clients.json", { $0.oauthClients == "@/etc/gatehouse/clients.json" }),
    SettingCase("oauth-dynamic-registration", "GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION", "on", { $0.oauthDynamicRegistration }),
    SettingCase("oauth-token-rate-limit", "GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT", "0", { $0.oauthTokenRateLimit == 0 }),
    SettingCase("secret-key", "GATEHOUSE_SECRET_KEY", String(repeating: "ab", count: 32), { $0.secretKey == String(repeating: "ab", count: 32) }),
    SettingCase("verify-token-ttl", "GATEHOUSE_VERIFY_TOKEN_TTL", "600", { $0.verifyTokenTTL == 600 }),
    SettingCase("reset-token-ttl", "GATEHOUSE_RESET_TOKEN_TTL", "900", { $0.resetTokenTTL == 900 }),
    SettingCase("mail-per-address-hour", "GATEHOUSE_MAIL_PER_ADDRESS_HOUR", "20", { $0.mailPerAddressHour == 20 }),
    SettingCase("mail-retry-base", "GATEHOUSE_MAIL_RETRY_BASE", "2", { $0.mailRetryBase == 2 }),
    SettingCase("recent-auth", "GATEHOUSE_RECENT_AUTH", "0", { $0.recentAuth == 0 }),
    SettingCase("session-idle-timeout", "GATEHOUSE_SESSION_IDLE_TIMEOUT", "1800", { $0.sessionIdleTimeout == 1800 }),
    SettingCase("read-only-master-key", "GATEHOUSE_READ_ONLY_MASTER_KEY", "r3ad", { $0.readOnlyMasterKey == "r3ad" }),
    SettingCase("security-notices", "GATEHOUSE_SECURITY_NOTICES", "off", { !$0.securityNotices }),
    SettingCase("admin-console", "GATEHOUSE_ADMIN_CONSOLE", "off", { !$0.adminConsole }),
    SettingCase("audit-log", "GATEHOUSE_AUDIT_LOG", "off", { !$0.auditLog }),
    SettingCase("audit-retention-days", "GATEHOUSE_AUDIT_RETENTION_DAYS", "30", { $0.auditRetentionDays == 30 }),
]

@Suite struct SettingsTests {
    @Test func defaults() throws {
        let settings = try Settings.parse(arguments: [], environment: [:])
        #expect(settings == Settings())
        #expect(settings.databaseURL == nil)
        #expect(settings.dataDirectory == "./.gatehouse")
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 1337)
        #expect(settings.appId == nil && settings.masterKey == nil)
        #expect(settings.sessionLength == 365 * 24 * 3600)
        #expect(settings.passwordMinLength == 8 && settings.passwordMaxBytes == 1024)
        #expect(settings.rateLimitPerAddress == 100 && settings.rateLimitPerAccount == 10)
        #expect(settings.lockoutThreshold == 0)
        #expect(settings.hashCost == "interactive" && settings.hashMaxWait == 5)
        #expect(settings.maxDocumentSize == 64 * 1024 && settings.maxTokens == 10_000)
        #expect(settings.maxDepth == 20 && settings.maxAliases == 50)
        #expect(settings.corsOrigins.isEmpty && settings.trustedProxies.isEmpty)
        #expect(settings.requestTimeout == 15 && settings.maxConnectionsPerAddress == 32)
        #expect(settings.logLevel == .info)
    }

    @Test func everySpecHasACase() {
        #expect(Set(settingCases.map(\.environment)) == Set(Settings.specs.map(\.environment)))
        #expect(Set(settingCases.map(\.flag)) == Set(Settings.specs.map(\.flag)))
        #expect(Set(Settings.specs.map(\.flag)).count == Settings.specs.count, "flags are unique")
        #expect(Set(Settings.specs.map(\.environment)).count == Settings.specs.count, "variables are unique")
    }

    @Test(arguments: settingCases)
    func environmentVariable(_ setting: SettingCase) throws {
        #expect(!setting.applied(Settings()), "the case's value must differ from the default")
        let settings = try Settings.parse(arguments: [], environment: [setting.environment: setting.value])
        #expect(setting.applied(settings))
    }

    @Test(arguments: settingCases)
    func flagWithEquals(_ setting: SettingCase) throws {
        let settings = try Settings.parse(arguments: ["--\(setting.flag)=\(setting.value)"], environment: [:])
        #expect(setting.applied(settings))
    }

    @Test(arguments: settingCases)
    func flagWithSeparateValue(_ setting: SettingCase) throws {
        let settings = try Settings.parse(arguments: ["--\(setting.flag)", setting.value], environment: [:])
        #expect(setting.applied(settings))
    }

    @Test(arguments: settingCases)
    func flagWinsOverEnvironment(_ setting: SettingCase) throws {
        // The environment holds the default's text; the flag the case's value.
        let defaultText = Settings.specs.first { $0.flag == setting.flag }!.defaultText
        let environmentValue = ["(embedded)", "(none)", "(set)"].contains(defaultText) ? "" : defaultText
        let settings = try Settings.parse(
            arguments: ["--\(setting.flag)", setting.value], environment: [setting.environment: environmentValue])
        #expect(setting.applied(settings))
        let reversed = try Settings.parse(
            arguments: ["--\(setting.flag)", environmentValue], environment: [setting.environment: setting.value])
        #expect(!setting.applied(reversed))
    }

    @Test func flagsAndEnvironmentCombine() throws {
        let settings = try Settings.parse(
            arguments: ["--port=0", "--app-id", "flag-app"],
            environment: ["GATEHOUSE_PORT": "9000", "GATEHOUSE_APP_ID": "env-app", "GATEHOUSE_HOST": "::1"])
        #expect(settings.port == 0)
        #expect(settings.appId == "flag-app")
        #expect(settings.host == "::1")
    }

    /// Bad values: the message names the setting by variable and flag, and quotes the value.
    @Test(arguments: [
        ("GATEHOUSE_PORT", "port", "x", #"GATEHOUSE_PORT (--port) must be a whole number from 0 to 65535, not "x"."#),
        ("GATEHOUSE_PORT", "port", "65536", #"GATEHOUSE_PORT (--port) must be a whole number from 0 to 65535, not "65536"."#),
        ("GATEHOUSE_PORT", "port", "", #"GATEHOUSE_PORT (--port) must be a whole number from 0 to 65535, not ""."#),
        ("GATEHOUSE_POOL_SIZE", "pool-size", "0", #"GATEHOUSE_POOL_SIZE (--pool-size) must be a whole number from 1 to 1000, not "0"."#),
        ("GATEHOUSE_POOL_TIMEOUT", "pool-timeout", "soon", #"GATEHOUSE_POOL_TIMEOUT (--pool-timeout) must be a number from 0.1 to 300.0, not "soon"."#),
        ("GATEHOUSE_DATABASE_WAIT", "database-wait", "-1", #"GATEHOUSE_DATABASE_WAIT (--database-wait) must be a number from 0.0 to 3600.0, not "-1"."#),
        ("GATEHOUSE_SHUTDOWN_TIMEOUT", "shutdown-timeout", "nan", #"GATEHOUSE_SHUTDOWN_TIMEOUT (--shutdown-timeout) must be a number from 0.0 to 3600.0, not "nan"."#),
        ("GATEHOUSE_SESSION_CACHE", "session-cache", "maybe", #"GATEHOUSE_SESSION_CACHE (--session-cache) must be true or false, not "maybe"."#),
        ("GATEHOUSE_TRUSTED_PROXIES", "trusted-proxies", "10.0.0.0/8,10.1.0.0/33", #"GATEHOUSE_TRUSTED_PROXIES (--trusted-proxies): "10.1.0.0/33" is not an IP address or CIDR network (e.g. 10.0.0.0/8 or 2001:db8::/64)."#),
        ("GATEHOUSE_TRUSTED_PROXIES", "trusted-proxies", "lb.example", #"GATEHOUSE_TRUSTED_PROXIES (--trusted-proxies): "lb.example" is not an IP address or CIDR network (e.g. 10.0.0.0/8 or 2001:db8::/64)."#),
        ("GATEHOUSE_REQUEST_TIMEOUT", "request-timeout", "0", #"GATEHOUSE_REQUEST_TIMEOUT (--request-timeout) must be a whole number from 1 to 3600, not "0"."#),
        ("GATEHOUSE_HASH_COST", "hash-cost", "cheap", #"GATEHOUSE_HASH_COST (--hash-cost) must be interactive, moderate or minimum, not "cheap"."#),
        ("GATEHOUSE_LOG_LEVEL", "log-level", "verbose", #"GATEHOUSE_LOG_LEVEL (--log-level) must be error, warn, info or debug, not "verbose"."#),
        ("GATEHOUSE_VERIFY_EMAILS", "verify-emails", "yes", #"GATEHOUSE_VERIFY_EMAILS (--verify-emails) must be off, on or required, not "yes"."#),
        ("GATEHOUSE_MFA", "mfa", "on", #"GATEHOUSE_MFA (--mfa) must be off, optional or required, not "on"."#),
        ("GATEHOUSE_DEV_MAILBOX", "dev-mailbox", "yes", #"GATEHOUSE_DEV_MAILBOX (--dev-mailbox) must be on, off or auto, not "yes"."#),
        ("GATEHOUSE_SECRET_KEY", "secret-key", "0123abcd", "GATEHOUSE_SECRET_KEY (--secret-key) must be 64 hexadecimal characters (32 random bytes), e.g. from `openssl rand -hex 32`."),
        ("GATEHOUSE_PUBLIC_URL", "public-url", "auth.example.com", #"GATEHOUSE_PUBLIC_URL (--public-url) must be an http:// or https:// URL with a host and no query, not "auth.example.com"."#),
        ("GATEHOUSE_PUBLIC_URL", "public-url", "ftp://auth.example.com", #"GATEHOUSE_PUBLIC_URL (--public-url) must be an http:// or https:// URL with a host and no query, not "ftp://auth.example.com"."#),
        ("GATEHOUSE_APP_NAME", "app-name", "two\nlines", "GATEHOUSE_APP_NAME (--app-name) must be 1 to 100 characters on one line."),
        ("GATEHOUSE_WEBAUTHN_RP_ID", "webauthn-rp-id", "https://example.com", #"GATEHOUSE_WEBAUTHN_RP_ID (--webauthn-rp-id) must be a lowercase domain name such as example.com, not "https://example.com"."#),
        ("GATEHOUSE_WEBAUTHN_ORIGINS", "webauthn-origins", "https://example.com/path", #"GATEHOUSE_WEBAUTHN_ORIGINS (--webauthn-origins): "https://example.com/path" is not an origin (https://host[:port] or android:apk-key-hash:…)."#),
        ("GATEHOUSE_RESET_TOKEN_TTL", "reset-token-ttl", "10", #"GATEHOUSE_RESET_TOKEN_TTL (--reset-token-ttl) must be a whole number from 60 to 2592000, not "10"."#),
        ("GATEHOUSE_ACCESS_TOKEN_TTL", "access-token-ttl", "30", #"GATEHOUSE_ACCESS_TOKEN_TTL (--access-token-ttl) must be a whole number from 60 to 3600, not "30"."#),
        ("GATEHOUSE_ACCESS_TOKEN_ALG", "access-token-alg", "HS256", #"GATEHOUSE_ACCESS_TOKEN_ALG (--access-token-alg) must be ES256 or RS256, not "HS256"."#),
        ("GATEHOUSE_ACCESS_TOKEN_AUDIENCES", "access-token-audiences", "a,b\u{0}c", "GATEHOUSE_ACCESS_TOKEN_AUDIENCES (--access-token-audiences): an audience must be one line of at most 1024 bytes."),
        ("GATEHOUSE_SIGNING_KEY_ROTATION_DAYS", "signing-key-rotation-days", "-1", #"GATEHOUSE_SIGNING_KEY_ROTATION_DAYS (--signing-key-rotation-days) must be a whole number from 0 to 3650, not "-1"."#),
        ("GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION", "oauth-dynamic-registration", "sometimes", #"GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION (--oauth-dynamic-registration) must be true or false, not "sometimes"."#),
        ("GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT", "oauth-token-rate-limit", "-1", #"GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT (--oauth-token-rate-limit) must be a whole number from 0 to 1000000, not "-1"."#),
        ("GATEHOUSE_AUDIT_RETENTION_DAYS", "audit-retention-days", "0", #"GATEHOUSE_AUDIT_RETENTION_DAYS (--audit-retention-days) must be a whole number from 1 to 36500, not "0"."#),
    ])
    func invalidValue(_ environment: String, _ flag: String, _ value: String, _ message: String) {
        #expect(throws: SettingsError(message)) { try Settings.parse(arguments: [], environment: [environment: value]) }
        #expect(throws: SettingsError(message)) { try Settings.parse(arguments: ["--\(flag)=\(value)"], environment: [:]) }
    }

    /// The boolean proxy setting is gone; a deployment still setting it must not start believing
    /// no proxy (every client would share the load balancer's rate-limit bucket) without being told.
    @Test(arguments: [
        ([], ["GATEHOUSE_TRUST_PROXY": "true"]), ([], ["GATEHOUSE_TRUST_PROXY": ""]),
        (["--trust-proxy", "yes"], [:]), (["--trust-proxy=no"], [:]),
    ] as [([String], [String: String])])
    func removedTrustProxyIsAClearError(_ arguments: [String], _ environment: [String: String]) {
        #expect(throws: SettingsError("GATEHOUSE_TRUST_PROXY (--trust-proxy) was removed; use GATEHOUSE_TRUSTED_PROXIES (--trusted-proxies), set to the load balancers' addresses or networks, e.g. 10.0.0.0/8.")) {
            try Settings.parse(arguments: arguments, environment: environment)
        }
    }

    @Test func unknownFlag() {
        #expect(throws: SettingsError("Unknown option --prot; see --help.")) {
            try Settings.parse(arguments: ["--prot", "1"], environment: [:])
        }
        #expect(throws: SettingsError("Unknown option --prot; see --help.")) {
            try Settings.parse(arguments: ["--prot=1"], environment: [:])
        }
        #expect(throws: SettingsError(#"Unexpected argument "1337"; see --help."#)) {
            try Settings.parse(arguments: ["1337"], environment: [:])
        }
    }

    /// A removed setting stops start-up with a message naming its replacement, whether it comes
    /// as a variable (unknown variables are otherwise ignored) or as a flag.
    @Test(arguments: [
        ([], ["GATEHOUSE_HASH_QUEUE": "16"]), (["--hash-queue", "16"], [:]), (["--hash-queue=16"], [:]),
    ] as [([String], [String: String])])
    func removedHashQueueNamesItsReplacement(_ arguments: [String], _ environment: [String: String]) {
        let message = "GATEHOUSE_HASH_QUEUE (--hash-queue) was removed; use GATEHOUSE_HASH_MAX_WAIT (--hash-max-wait): "
            + "hashing is admitted by the wait it would cause, not by a queue length."
        #expect(throws: SettingsError(message)) { try Settings.parse(arguments: arguments, environment: environment) }
    }

    @Test func unknownEnvironmentVariablesAreIgnored() throws {
        #expect(try Settings.parse(arguments: [], environment: ["GATEHOUSE_PROT": "x", "PATH": "/bin"]) == Settings())
    }

    @Test(arguments: [
        (["--port"], "--port needs a value (N)."),
        (["--app-id"], "--app-id needs a value (ID)."),
        // The next flag is not taken as the value.
        (["--app-id", "--port", "1"], "--app-id needs a value (ID)."),
        (["--master-key", "--host=0.0.0.0"], "--master-key needs a value (KEY)."),
    ])
    func missingValue(_ arguments: [String], _ message: String) {
        #expect(throws: SettingsError(message)) { try Settings.parse(arguments: arguments, environment: [:]) }
    }

    @Test func emptyOptionalTextMeansUnset() throws {
        let settings = try Settings.parse(
            arguments: [], environment: ["GATEHOUSE_APP_ID": "", "GATEHOUSE_MASTER_KEY": "", "DATABASE_URL": ""])
        #expect(settings.appId == nil && settings.masterKey == nil && settings.databaseURL == nil)
    }

    @Test func passwordMinimumAboveMaximum() throws {
        let message = "GATEHOUSE_PASSWORD_MIN_LENGTH (20) is larger than GATEHOUSE_PASSWORD_MAX_BYTES (10)."
        #expect(throws: SettingsError(message)) {
            try Settings.parse(arguments: ["--password-min-length", "20", "--password-max-bytes", "10"], environment: [:])
        }
        #expect(throws: SettingsError(message)) {
            try Settings.parse(
                arguments: [], environment: ["GATEHOUSE_PASSWORD_MIN_LENGTH": "20", "GATEHOUSE_PASSWORD_MAX_BYTES": "10"])
        }
        // Equal is fine.
        let equal = try Settings.parse(arguments: ["--password-min-length=10", "--password-max-bytes=10"], environment: [:])
        #expect(equal.passwordMinLength == 10)
    }

    @Test func helpListsEverySetting() {
        for spec in Settings.specs {
            #expect(Command.serveHelp.contains("--\(spec.flag) "), "\(spec.flag)")
            #expect(Command.serveHelp.contains(spec.environment + ";"), "\(spec.environment)")
        }
        #expect(!Command.serveHelp.contains("s3cret"))
    }
}

/// Without `GATEHOUSE_PUBLIC_URL`, a loopback listener's links and passkeys use `localhost` (a
/// browser refuses passkeys on an IP address); any other listener's use its own address.
@Suite struct DefaultPublicURLTests {
    @Test(arguments: [
        ("127.0.0.1", 1337, "http://localhost:1337"),
        ("127.0.0.2", 8080, "http://localhost:8080"),
        ("::1", 1337, "http://localhost:1337"),
        ("localhost", 1337, "http://localhost:1337"),
        ("0.0.0.0", 1337, "http://0.0.0.0:1337"),
        ("192.0.2.7", 80, "http://192.0.2.7:80"),
        ("2001:db8::1", 443, "http://[2001:db8::1]:443"),
        ("auth.example.com", 1337, "http://auth.example.com:1337"),
    ])
    func defaultPublicURL(_ host: String, _ port: Int, _ expected: String) {
        #expect(GatehouseServer.defaultPublicURL(host: host, port: port) == expected)
    }
}
