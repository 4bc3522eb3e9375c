import Auth
import AuthGraphQL
import Curl
import Foundation
import GraphQL
import GraphQLHTTP
import HTTPServer
import IPNetworks
import Threading
import Mail
import Postgres
import Providers
import Sodium

/// A running Gatehouse: database (embedded or external), migrations, the served
/// schema, the auth service and the HTTP server, started in that order and stopped
/// in reverse.
public final class GatehouseServer: Sendable {
    public let settings: Settings
    public let logger: Logger
    private let embedded: EmbeddedPostgres?
    private let pool: Pool
    /// The standby's pool for session lookups (`GATEHOUSE_READ_DATABASE_URL`).
    private let readPool: Pool?
    private let hashing: PasswordHashingPool
    private let janitor: SessionJanitorThread
    /// Reloads the access-token signing keys and does their schedule's work (``keyRefreshInterval``).
    private let keyRefresher: PeriodicThread
    /// Seals the audit log's settled entries (``AuditLog/sealSettled(batchSize:)``) every ``auditSealInterval``.
    private let auditSealer: PeriodicThread
    private let listener: NotificationListener?
    private let mailSender: MailSender?
    private let webhookSender: WebhookSender?
    private let http: HTTPServer
    /// The `logInWith` providers of `GATEHOUSE_AUTH_PROVIDERS`.
    let providers: ProviderRegistry

    /// Why the server could not start: a message for the operator (no secrets).
    public struct StartError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Starts everything; when this returns the server is accepting requests. `listenSocket`: a
    /// socket already listening on the settings' address (opened while still root), else the
    /// server binds it.
    public convenience init(settings: Settings, logger: Logger? = nil, listenSocket: Int32? = nil) throws(StartError) {
        try self.init(settings: settings, logger: logger, listenSocket: listenSocket, hashingMeter: nil)
    }

    /// A server whose password hashing pool measures its jobs with `hashingMeter` (nil: their CPU
    /// time): tests give fixed costs, so that which hashes are admitted does not depend on the machine.
    package init(
        settings: Settings, logger: Logger?, listenSocket: Int32?, hashingMeter: PasswordHashingPool.JobMeter?
    ) throws(StartError) {
        self.settings = settings
        let logger = logger ?? Logger(level: settings.logLevel)
        self.logger = logger

        // The schema first: a broken contract or fields file should fail before anything starts.
        let (schema, userFields) = try Self.schema(settings)
        var blocklist: PasswordBlocklist? = nil
        if let path = settings.passwordBlocklist {
            do { blocklist = try PasswordBlocklist(path: path) } catch {
                throw StartError("GATEHOUSE_PASSWORD_BLOCKLIST (--password-blocklist): \(error)")
            }
        }

        let providerConfiguration: ProviderConfiguration
        do { providerConfiguration = try ProviderConfiguration.parse(settings.authProviders) } catch {
            throw StartError("GATEHOUSE_AUTH_PROVIDERS (--auth-providers): \(error)")
        }
        providers = ProviderRegistry(configuration: providerConfiguration)
        let webhookEndpoints: [WebhookEndpoint]
        let hookEndpoints: [AuthHooks.Point: HookEndpoint]
        do {
            webhookEndpoints = try EventConfiguration.webhooks(settings.webhooks)
            hookEndpoints = try EventConfiguration.hooks(settings.hooks)
        } catch {
            throw StartError(error.description)
        }

        let oauthClients: [OAuthClient]
        do {
            // The issuer is the default audience; without GATEHOUSE_PUBLIC_URL it is known only once
            // the socket listens, and the authorization request checks the resource against it then.
            let audiences = settings.accessTokenAudiences.isEmpty
                ? settings.publicURL.map { [$0.hasSuffix("/") ? String($0.dropLast()) : $0] } : settings.accessTokenAudiences
            oauthClients = try Self.oauthClients(settings.oauthClients, audiences: audiences)
        } catch { throw StartError(error.description) }
        // Services tell the server's own access tokens from an OAuth client's by `client_id`.
        if let index = oauthClients.firstIndex(where: { $0.clientId == (settings.appId ?? "gatehouse") }) {
            throw StartError(
                "GATEHOUSE_OAUTH_CLIENTS[\(index)].client_id \"\(oauthClients[index].clientId)\" is the client_id of the server's own access tokens (GATEHOUSE_APP_ID, or gatehouse without one): choose another.")
        }

        let from: MailAddress
        if let mailFrom = settings.mailFrom {
            do { from = try MailAddress(parsing: mailFrom) } catch {
                throw StartError("GATEHOUSE_MAIL_FROM (--mail-from): \(error)")
            }
        } else {
            from = MailAddress(name: settings.appName, address: "no-reply@localhost")
        }
        let composer = MailComposer(appName: settings.appName, from: from)
        var smtp: SMTPClient? = nil
        if let url = settings.smtpURL {
            // SMTPError's text never quotes the URL, which may hold a password.
            do { smtp = try SMTPClient(url: url, caFile: settings.smtpCAFile, timeout: MailSender.smtpTimeout) } catch {
                throw StartError("GATEHOUSE_SMTP_URL (--smtp-url): \(error)")
            }
        }

        // The listener first: links in mail name its port (the one picked, for port 0).
        let socket: Int32
        if let listenSocket { socket = listenSocket } else {
            do { socket = try HTTPServer.openListeningSocket(host: settings.host, port: settings.port) } catch {
                throw StartError("cannot listen: \(error)")
            }
        }
        var socketHandedOver = false
        defer { if !socketHandedOver { close(socket) } }
        let publicURL = settings.publicURL
            ?? Self.defaultPublicURL(host: settings.host, port: HTTPServer.port(ofListeningSocket: socket) ?? settings.port)
        self.publicURL = publicURL

        if settings.readDatabaseURL != nil && settings.databaseURL == nil {
            throw StartError("GATEHOUSE_READ_DATABASE_URL (--read-database-url) needs DATABASE_URL: it names a standby of that database.")
        }
        // An external database's key must be given: checked before the database is opened.
        if settings.databaseURL != nil { _ = try Self.secretBox(settings, keyDirectory: nil, purpose: .totp) }
        let (embedded, pool, connection) = try Self.openDatabase(settings, logger)
        self.embedded = embedded
        self.pool = pool
        let readPool = Self.readPool(settings, connection)
        self.readPool = readPool
        var started = false
        defer {
            if !started {
                pool.close()
                readPool?.close()
                if let embedded { try? embedded.stop() }
            }
        }
        let totpBox = try Self.secretBox(settings, keyDirectory: embedded?.dataDirectory, purpose: .totp)
        let linkBox = try Self.secretBox(settings, keyDirectory: embedded?.dataDirectory, purpose: .mailLinks)
        let keyBox = try Self.secretBox(settings, keyDirectory: embedded?.dataDirectory, purpose: .signingKeys)
        do {
            let applied = try Self.migrate(settings, pool, logger)
            for migration in applied { logger.info("migration applied", ["version": .int(migration.version), "name": .string(migration.name)]) }
        } catch {
            throw StartError("database migration failed: \(error)")
        }

        let cost: PasswordHasher.Cost = switch settings.hashCost {
        case "minimum": .minimum
        case "moderate": .moderate
        default: .interactive
        }
        let hasher: PasswordHasher
        do { hasher = try PasswordHasher(cost: cost) } catch { throw StartError("password hasher: \(error)") }
        let hashing = PasswordHashingPool(
            hasher: hasher, workers: settings.hashWorkers, maxWait: settings.hashMaxWait,
            meter: hashingMeter ?? PasswordHashingPool.threadCPUSeconds)
        self.hashing = hashing
        defer { if !started { hashing.shutdown() } }

        let relyingParty = AuthConfiguration.relyingParty(
            publicURL: publicURL, name: settings.appName, id: settings.webAuthnRPID,
            origins: settings.webAuthnOrigins.isEmpty ? nil : Set(settings.webAuthnOrigins))
        let log: @Sendable (String) -> Void = { logger.error("internal error", ["detail": .string($0)]) }
        // The auth service's signing keys, once it is made: the refresher and the listener's key
        // notifications are made before it.
        let signingKeys = Lock<SigningKeys?>(nil)
        let keyRefresher = PeriodicThread(name: "gatehouse-signing-keys", interval: Self.keyRefreshInterval) {
            guard let keys = signingKeys.withLock({ $0 }) else { return }
            do { Self.log(try keys.refresh(), logger) } catch {
                logger.warn("reading the access-token signing keys failed", ["error": .string(String(describing: error))])
            }
        }
        self.keyRefresher = keyRefresher
        let (cache, listener) = Self.sessionCache(settings, connection, logger, onKeysChanged: keyRefresher.wake)
        self.listener = listener
        defer { if !started { listener?.stop() } }
        let webhookWakeup = EventLog.Wakeup()
        let auth = AuthService(pool: pool, hashing: hashing, options: AuthService.Options(
            configuration: Self.withOperatorSettings(settings, AuthConfiguration(
                sessionLength: settings.sessionLength,
                passwordPolicy: PasswordPolicy(
                    minimumLength: settings.passwordMinLength, maximumBytes: settings.passwordMaxBytes, blocklist: blocklist),
                rateLimits: RateLimitPolicy(perAddress: settings.rateLimitPerAddress, perAccount: settings.rateLimitPerAccount),
                lockout: settings.lockoutThreshold > 0
                    ? LockoutPolicy(threshold: settings.lockoutThreshold, durationMinutes: settings.lockoutMinutes) : nil,
                masterKey: settings.masterKey,
                accounts: AccountPolicy(
                    verifyEmails: settings.verifyEmails, verifyTokenLifetime: settings.verifyTokenTTL,
                    resetTokenLifetime: settings.resetTokenTTL, recentAuthentication: settings.recentAuth,
                    sessionIdleTimeout: settings.sessionIdleTimeout, publicURL: publicURL,
                    messagesPerAddressPerHour: settings.mailPerAddressHour),
                mfa: settings.mfa,
                relyingParty: relyingParty, userFields: userFields?.fields ?? .none,
                accessTokens: Self.accessTokenPolicy(settings),
                oauth: OAuthPolicy(
                    clients: oauthClients, dynamicRegistration: settings.oauthDynamicRegistration,
                    tokenRequestsPerMinute: settings.oauthTokenRateLimit))),
            sessionCache: cache, providers: providers, sessionLookupBatches: settings.sessionLookupBatches, totpBox: totpBox,
            linkBox: linkBox, keyBox: keyBox, readPool: readPool, onStandbyChange: { event in
                switch event {
                case .unavailable(let error):
                    logger.warn("read database unavailable, session lookups go to the primary", ["error": .string(error)])
                case .behind:
                    logger.warn("read database behind the primary, session lookups go to the primary until it catches up")
                case .serving:
                    logger.info("read database serving session lookups")
                }
            },
            log: log, refused: { logger.info("credential refused", ["detail": .string($0)]) },
            events: EventLog(
                subscribers: webhookEndpoints.map { EventLog.Subscriber(endpoint: $0.url, kinds: $0.kinds) }, auditing: settings.auditLog,
                wakeup: webhookWakeup),
            hooks: hookEndpoints.isEmpty ? nil : HookCaller(hooks: hookEndpoints, logger: logger).authHooks))
        let refreshHashKinds: @Sendable () -> Void = {
            do { try auth.core.refreshHashKinds() } catch {
                logger.warn("reading the kinds of stored password hash failed", ["error": .string(String(describing: error))])
            }
        }
        refreshHashKinds()
        try Self.checkStoredFields(auth)
        // The first instance to start makes the first key; every instance has its keys before it serves.
        signingKeys.withLock { $0 = auth.tokens.keys }
        do { Self.log(try auth.tokens.keys.refresh(), logger) } catch {
            throw StartError("access-token signing keys: \(error)")
        }
        let janitorRuns = Lock(0)
        let retention = TimeInterval(settings.auditRetentionDays) * 86400
        // Pruned whether or not the log is on now: entries written while it was on still expire.
        let pruneAudit: @Sendable () -> Void = {
            do {
                let pruned = try auth.audit.log.prune(before: Date().addingTimeInterval(-retention))
                if pruned > 0 { logger.info("old audit entries pruned", ["count": .int(pruned)]) }
            } catch {
                logger.warn("pruning the audit log failed", ["error": .string(String(describing: error))])
            }
        }
        // Every instance seals (one at a time; the others skip), whether or not the log is on now.
        auditSealer = PeriodicThread(name: "gatehouse-audit-sealer", interval: Self.auditSealInterval) {
            do { try auth.audit.log.sealSettled() } catch {
                logger.warn("sealing the audit log failed", ["error": .string(String(describing: error))])
            }
        }
        let executable: ExecutableSchema<RequestContext>
        do { executable = try AuthGraphQL.executableSchema(auth: auth, schema: schema, log: log) } catch {
            throw StartError("resolvers do not match schema.graphql:\n\(error)")
        }
        let service = GraphQLService(
            executable: executable, parseOptions: ParseOptions(maxTokens: settings.maxTokens),
            limits: QueryLimits(maxDepth: settings.maxDepth, maxAliases: settings.maxAliases, maxRootFields: settings.maxRootFields))
        let contexts = ContextFactory(auth: auth, proxies: TrustedProxies(settings.trustedProxies))
        let responder = GraphQLHTTPResponder(
            service: service,
            configuration: .init(appId: settings.appId, maxDocumentSize: settings.maxDocumentSize),
            context: contexts.context(for:_:_:), finish: ContextFactory.finish)
        let outbox = OutboxStore(pool: pool)
        let mailSender = smtp.map { smtp in
            MailSender(
                store: outbox, connection: settings.pollInterval > 0 ? nil : connection, client: smtp, composer: composer,
                linkBox: linkBox, retryBase: settings.mailRetryBase, logger: logger,
                pollInterval: settings.pollInterval > 0 ? settings.pollInterval : 30)
        }
        self.mailSender = mailSender
        let webhookSender = webhookEndpoints.isEmpty ? nil : WebhookSender(
            store: WebhookOutboxStore(pool: pool), endpoints: webhookEndpoints,
            connection: settings.pollInterval > 0 ? nil : connection, logger: logger, wakeup: webhookWakeup,
            pollInterval: settings.pollInterval > 0 ? settings.pollInterval : 30)
        self.webhookSender = webhookSender
        let devMailbox = DevMailbox.isServed(mode: settings.devMailbox, embeddedDatabase: embedded != nil, smtpConfigured: smtp != nil)
            ? DevMailbox(store: outbox, composer: composer, linkBox: linkBox, smtpConfigured: smtp != nil) : nil
        let connectionCounts = HTTPServer.ConnectionCounts()
        let router = Router(
            responder: responder, contexts: contexts, cors: CORSPolicy(allowedOrigins: settings.corsOrigins), logger: logger,
            metrics: Metrics(), pool: pool, hashing: hashing, connectionCounts: connectionCounts,
            pages: Pages(
                appId: settings.appId, passwordMinLength: settings.passwordMinLength, appName: settings.appName,
                devMailbox: devMailbox != nil,
                providers: (providerConfiguration.anonymousEnabled ? ["anonymous"] : []) + providerConfiguration.names,
                passkeys: Pages.PasskeySite(
                    relyingPartyId: relyingParty.id, origins: relyingParty.origins.sorted(), url: publicURL),
                secondFactors: settings.mfa, adminConsole: settings.adminConsole),
            mailSender: mailSender, webhookSender: webhookSender, devMailbox: devMailbox,
            sessionCache: cache, sessionListener: listener)

        janitor = SessionJanitorThread(
            janitor: SessionJanitor(pool: pool, idleTimeout: settings.sessionIdleTimeout), intervalSeconds: 300,
            onRun: { report in
                if report.deleted > 0 { logger.info("expired sessions deleted", ["count": .int(report.deleted)]) }
                // Hourly: the read scans the users table, and only drops kinds no account has any
                // more (a log-in meeting a new kind adds it at once).
                if janitorRuns.withLock({ runs in runs += 1; return runs % 12 == 0 }) {
                    refreshHashKinds()
                    pruneAudit()
                }
            },
            onError: { error in
                logger.warn("expired session cleanup failed", ["error": .string(String(describing: error))])
            })
        var configuration = HTTPServer.Configuration(
            host: settings.host, port: settings.port, workerThreads: settings.httpThreads,
            blockingThreads: settings.httpBlockingThreads,
            maxBodySize: settings.maxBodySize, connectionTimeout: settings.connectionTimeout,
            requestTimeout: settings.requestTimeout, maxConnections: settings.maxConnections,
            maxConnectionsPerAddress: settings.maxConnectionsPerAddress, uncappedNetworks: settings.trustedProxies,
            log: { logger.debug("http", ["detail": .string($0)]) })
        configuration.listenSocket = socket
        configuration.connectionCounts = connectionCounts
        http = HTTPServer(configuration: configuration, handler: router)
        socketHandedOver = true
        do { try http.start() } catch {
            throw StartError("cannot listen: \(error)")
        }
        janitor.start()
        keyRefresher.start()
        auditSealer.start()
        if let webhookSender {
            webhookSender.start()
            logger.info("webhook delivery on", ["endpoints": .int(webhookEndpoints.count)])
        }
        if let mailSender, let smtp {
            mailSender.start()
            logger.info("mail delivery on", ["smtp": .string(smtp.description)])
        } else if devMailbox != nil {
            logger.info("no SMTP server configured (GATEHOUSE_SMTP_URL): mail stays in the outbox; see the dev mailbox (from this machine)", [
                "mailbox": .string("http://\(Self.loopbackHost(listening: settings.host)):\(port)/_dev/mailbox")
            ])
        } else {
            logger.info("no SMTP server configured (GATEHOUSE_SMTP_URL): mail stays in the outbox; the dev mailbox is off (GATEHOUSE_DEV_MAILBOX)")
        }
        started = true
    }

    /// The port actually bound (the asked one, or the one picked for port 0).
    public var port: Int { http.boundPort ?? settings.port }

    /// HTTP connections open now (``HTTPServer/openConnectionCount``).
    public var openConnectionCount: Int { http.openConnectionCount }

    /// HTTP connections closed for being over the per-address cap (``HTTPServer/refusedConnectionCount``).
    public var refusedConnectionCount: Int { http.refusedConnectionCount }

    /// HTTP connections closed by the request deadline (``HTTPServer/timedOutRequestCount``).
    public var timedOutRequestCount: Int { http.timedOutRequestCount }

    /// The address users reach the server at: `GATEHOUSE_PUBLIC_URL`, else ``defaultPublicURL(host:port:)``.
    public let publicURL: String

    /// The public URL of a server without `GATEHOUSE_PUBLIC_URL`: `http://<host>:<port>` of the
    /// listener, but `http://localhost:<port>` for a loopback listener. Browsers refuse passkeys on
    /// an IP address (the relying party id must be a domain) and treat `localhost` as a secure
    /// context, so a server on 127.0.0.1 gets working passkeys and links a browser on the same
    /// machine can open.
    static func defaultPublicURL(host: String, port: Int) -> String {
        if host == "localhost" || IPAddress(host)?.isLoopback == true { return "http://localhost:\(port)" }
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The GraphQL endpoint's URL.
    public var endpoint: String {
        let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        return "http://\(host):\(port)/graphql"
    }

    /// Graceful shutdown: stop accepting, let in-flight requests finish within the
    /// shutdown timeout, then close the pool and stop the embedded database.
    public func stop() {
        let drained = http.stop(deadline: .now + .milliseconds(Int(settings.shutdownTimeout * 1000)))
        if !drained { logger.warn("shutdown deadline passed with requests in flight") }
        janitor.stop()
        keyRefresher.stop()
        auditSealer.stop()
        mailSender?.stop()
        webhookSender?.stop()
        listener?.stop()
        hashing.shutdown()
        pool.close()
        readPool?.close()
        if let embedded {
            do { try embedded.stop() } catch { logger.error("embedded database did not stop cleanly", ["error": .string(String(describing: error))]) }
        }
        logger.info("stopped")
        logger.flush()
    }

    /// The served schema, extended with `GATEHOUSE_USER_FIELDS`'s fields when it is set, and
    /// those fields (their problems, each `file:line:column: message`, stop the start).
    static func schema(_ settings: Settings) throws(StartError) -> (GraphQLSchema, UserFieldsFile?) {
        let base: GraphQLSchema
        do { base = try AuthGraphQL.schema() } catch { throw StartError("schema.graphql does not build:\n\(error)") }
        guard let setting = settings.userFields else { return (base, nil) }
        let file: UserFieldsFile
        do { file = try UserFieldsFile.read(setting: setting, base: base) } catch {
            throw StartError("GATEHOUSE_USER_FIELDS (--user-fields):\n\(error)")
        }
        do { return (try AuthGraphQL.schema(userFields: file), file) } catch {
            throw StartError("GATEHOUSE_USER_FIELDS (--user-fields): the schema with these fields does not build:\n\(error)")
        }
    }

    /// Stops the start when users hold values of a declared field that its declared type does not
    /// take (its type changed since), naming each such field and how many users hold them.
    /// `configuration` with the operators' settings: the read-only master key and the security notices.
    static func withOperatorSettings(_ settings: Settings, _ configuration: AuthConfiguration) -> AuthConfiguration {
        var configuration = configuration
        configuration.readOnlyMasterKey = settings.readOnlyMasterKey
        configuration.securityNotices = settings.securityNotices
        return configuration
    }

    static func checkStoredFields(_ auth: AuthService) throws(StartError) {
        let misfits: [(field: String, users: Int)]
        do { misfits = try auth.accounts.fieldsNotFittingStoredValues() } catch {
            throw StartError("GATEHOUSE_USER_FIELDS (--user-fields): reading the stored values of the declared fields failed: \(error.message)")
        }
        guard !misfits.isEmpty else { return }
        let lines = misfits.map { misfit in
            let type = auth.core.configuration.userFields.field(misfit.field).map(UserFieldsFile.typeName) ?? "?"
            return "field \"\(misfit.field)\" is declared \(type), but \(misfit.users) user\(misfit.users == 1 ? "" : "s") hold\(misfit.users == 1 ? "s" : "") a stored value that is not"
        }
        throw StartError(
            "GATEHOUSE_USER_FIELDS (--user-fields): stored values do not fit the declared types:\n"
                + lines.joined(separator: "\n")
                + "\nKeep the earlier type, or change or clear those values (updateUser with the master key) under it first.")
    }

    /// The external database of `DATABASE_URL`, or the embedded one (created on first run).
    static func openDatabase(
        _ settings: Settings, _ logger: Logger
    ) throws(StartError) -> (EmbeddedPostgres?, Pool, ConnectionConfiguration) {
        var embedded: EmbeddedPostgres? = nil
        let connectionString: String
        if let url = settings.databaseURL {
            connectionString = url
        } else {
            do {
                let cluster = try EmbeddedPostgres(options: .init(dataDirectory: settings.dataDirectory))
                let firstRun = !cluster.isInitialized
                connectionString = try cluster.start()
                embedded = cluster
                logger.info(firstRun ? "embedded database created" : "embedded database started", ["cluster": .string(cluster.clusterDirectory)])
            } catch {
                throw StartError("embedded database: \(error)")
            }
        }
        // A connect (to a host that does not answer, during a failover) is bounded by the pool
        // timeout as a wait for a free connection is, so a request fails within it either way
        // (libpq's minimum is 2 s; a connect_timeout in the connection string wins).
        var connection = ConnectionConfiguration(
            connectionString, connectTimeoutSeconds: max(2, Int(settings.poolTimeout.rounded(.up))),
            statementTimeoutMilliseconds: settings.statementTimeout)
        // Polling is for engines without LISTEN/NOTIFY, where a trigger's pg_notify would fail the
        // write. Every connection of this instance (pools, the migration lock's, the read pool,
        // admin commands) is made from this configuration, so setting it here covers them all.
        if settings.pollInterval > 0 { connection.runtimeParameters[AuthMigrations.notifySetting] = "off" }
        let pool = Pool(configuration: PoolConfiguration(
            connection: connection, size: settings.poolSize, checkoutTimeoutSeconds: settings.poolTimeout))
        return (embedded, pool, connection)
    }

    /// The pool of `GATEHOUSE_READ_DATABASE_URL`, connecting and timing out as the primary's does
    /// (`primary`); nil when unset.
    static func readPool(_ settings: Settings, _ primary: ConnectionConfiguration) -> Pool? {
        guard let url = settings.readDatabaseURL else { return nil }
        var connection = primary
        connection.connectionString = url
        return Pool(configuration: PoolConfiguration(
            connection: connection, size: settings.poolSize, checkoutTimeoutSeconds: settings.poolTimeout))
    }

    /// The box for `purpose` (TOTP secrets, the links of mail in the outbox, signing keys), under
    /// `GATEHOUSE_SECRET_KEY` or else the key file in `keyDirectory` (the embedded default's data
    /// directory; made on first start). Without either (`DATABASE_URL`) a key must be given:
    /// instances sharing a database must share the key.
    static func secretBox(_ settings: Settings, keyDirectory: String?, purpose: SecretBox.Purpose) throws(StartError) -> SecretBox {
        var key = settings.secretKey
        if key == nil, let keyDirectory {
            do { key = try SecretKeyFile.readOrCreate(directory: keyDirectory) } catch {
                throw StartError("GATEHOUSE_SECRET_KEY (--secret-key): \(error)")
            }
        }
        guard let key else {
            throw StartError(
                "GATEHOUSE_SECRET_KEY (--secret-key) must be set with DATABASE_URL: it seals TOTP secrets, the links of mail waiting to be sent and the access-token signing keys, and must be the same for every instance and restart (make one with `openssl rand -hex 32`).")
        }
        do { return try SecretBox(secretKey: key, purpose: purpose) } catch {
            let source = settings.secretKey == nil
                ? "the key file \(((keyDirectory ?? "") as NSString).appendingPathComponent(SecretKeyFile.name))" : "(--secret-key)"
            throw StartError("GATEHOUSE_SECRET_KEY \(source) \(error).")
        }
    }

    /// The access-token settings.
    static func accessTokenPolicy(_ settings: Settings) -> AccessTokenPolicy {
        AccessTokenPolicy(
            audiences: settings.accessTokenAudiences, lifetime: settings.accessTokenTTL, algorithm: settings.accessTokenAlgorithm,
            rotationDays: settings.signingKeyRotationDays, clientId: settings.appId ?? "gatehouse")
    }

    /// The static OAuth clients of `GATEHOUSE_OAUTH_CLIENTS`: its JSON, or `@path` of a file with it;
    /// each client's `resources` among `audiences`, those access tokens are issued for.
    static func oauthClients(_ value: String?, audiences: [String]?) throws(OAuthClientsError) -> [OAuthClient] {
        guard var text = value else { return [] }
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw OAuthClientsError("GATEHOUSE_OAUTH_CLIENTS: cannot read the file \(path).")
            }
            text = contents
        }
        return try OAuthPolicy.parseClients(text, audiences: audiences)
    }

    /// Seconds between reads of the signing keys when no notification comes sooner: well within the
    /// key set's max-age, which the key schedule relies on instances to pick up a new key within.
    static let keyRefreshInterval = 60.0

    /// Seconds between the sealer's passes: a new audit entry is sealed one to two passes after its
    /// commit (a pass sets the fence, a later one seals up to it).
    static let auditSealInterval = 0.5

    /// Logs what a refresh of the signing keys did (key ids only: they are public).
    static func log(_ report: SigningKeys.Report, _ logger: Logger) {
        for key in report.made {
            logger.info("access-token signing key made", [
                "kid": .string(key.keyId), "alg": .string(key.algorithm.rawValue),
                "signsAfterSeconds": .int(max(0, Int(key.signsFrom.timeIntervalSince(key.createdAt).rounded()))),
            ])
        }
        for keyId in report.deleted {
            logger.info("access-token signing key deleted: every token it signed has expired", ["kid": .string(keyId)])
        }
        for keyId in report.unreadable {
            logger.error("an access-token signing key cannot be opened: GATEHOUSE_SECRET_KEY is not the key it was sealed with", [
                "kid": .string(keyId)
            ])
        }
    }

    /// The host of a URL on this machine for a listener on `host`: a wildcard address becomes the
    /// loopback one (the dev mailbox answers loopback host names only).
    static func loopbackHost(listening host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }

    /// Applies the migrations, waiting out a failover (``DatabaseWait``), under the lock the
    /// engine has (``Settings/pollInterval``).
    static func migrate(_ settings: Settings, _ pool: Pool, _ logger: Logger) throws -> [Migration] {
        let migrator = Migrator(migrations: AuthMigrations.all, lock: settings.pollInterval > 0 ? .row : .advisory)
        return try DatabaseWait(seconds: settings.databaseWait, logger: logger).run("migrations") { try migrator.migrate(pool) }
    }

    /// The session cache and the listener that keeps it honest: notifications drop
    /// changed sessions and users; a dropped listening connection empties the cache
    /// and bypasses it until listening resumes; every (re)connect empties it again, as
    /// notifications may have been missed meanwhile. The same listener hears of changed
    /// signing keys (`onKeysChanged`, also on every (re)connect); without it they are read
    /// every ``keyRefreshInterval``.
    static func sessionCache(
        _ settings: Settings, _ connection: ConnectionConfiguration, _ logger: Logger,
        onKeysChanged: @escaping @Sendable () -> Void = {}
    ) -> (SessionCache?, NotificationListener?) {
        guard settings.sessionCache else { return (nil, nil) }
        if settings.pollInterval > 0 {
            // No notifications: an entry is trusted for the staleness bound at most, then read again.
            let cache = SessionCache(capacity: settings.sessionCacheSize, ttl: min(settings.sessionCacheTTL, settings.pollInterval))
            cache.reset(live: true)
            logger.info("session cache without notifications", ["ttlSeconds": .double(cache.ttl)])
            return (cache, nil)
        }
        let cache = SessionCache(capacity: settings.sessionCacheSize, ttl: settings.sessionCacheTTL)
        // Whether the connection was lost (or never made) since the cache was last switched on.
        let wasLost = Lock(false)
        let listener = NotificationListener(
            configuration: connection,
            channels: [AuthMigrations.Channel.sessions, AuthMigrations.Channel.users, AuthMigrations.Channel.signingKeys],
            onNotification: { notification in
                switch notification.channel {
                case AuthMigrations.Channel.sessions: cache.invalidate(digestHex: notification.payload)
                case AuthMigrations.Channel.signingKeys: onKeysChanged()
                default: cache.invalidate(userId: notification.payload)
                }
            },
            onConnect: {
                cache.reset(live: true)
                onKeysChanged()
                if wasLost.withLock({ lost in defer { lost = false }; return lost }) {
                    logger.info("session cache on again: notification connection restored, cache emptied")
                } else {
                    logger.debug("session cache live")
                }
            },
            onDisconnect: { error in
                cache.reset(live: false)
                wasLost.withLock { $0 = true }
                logger.warn("session cache off: notification connection lost", ["error": .string(String(describing: error))])
            })
        listener.start()
        return (cache, listener)
    }
}
