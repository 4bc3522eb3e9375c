import Auth
import AuthGraphQL
import Foundation
import GraphQL
import JSON
import Postgres
import Providers
import Sodium
import Synchronization
import ServerTestSupport
import TestSupport

/// One test's auth stack: a fresh migrated database, an `AuthService` hashing at
/// libsodium's minimum cost, and the GraphQL service over it, called the way the HTTP
/// layer calls it (headers become a `RequestContext`, then prepare and execute).
final class Harness: Sendable {
    let database: TestDatabase
    let pool: Pool
    let hashing: PasswordHashingPool
    let auth: AuthService
    let service: GraphQLService<RequestContext>
    let clock: TestClock
    /// Seals the outbox's links (``OutboxRow`` opens them with it).
    let linkBox: SecretBox
    /// Seals the access-token signing keys.
    let keyBox: SecretBox
    /// Everything passed to the `log` closures of AuthService and AuthGraphQL.
    let logs = LogCapture()

    static let masterKey = "test-master-key-0123456789"

    /// `providers`: `GATEHOUSE_AUTH_PROVIDERS`'s JSON (nil: its default, anonymous users only).
    /// `hashingMeter`: measures the hashing pool's jobs (nil: their CPU time). `userFields`: the
    /// SDL of `GATEHOUSE_USER_FIELDS` (nil: none). `sharing`: another harness whose database this
    /// one uses (an instance started with other settings on the same data). `events`: where
    /// events are recorded (nil: nowhere).
    init(
        configuration: AuthConfiguration = AuthConfiguration(masterKey: Harness.masterKey),
        cost: PasswordHasher.Cost = .minimum, workers: Int = 2, maxWait: Double = 5, poolSize: Int = 4,
        hashingMeter: PasswordHashingPool.JobMeter? = nil,
        onVerify: (@Sendable (String) -> Void)? = nil,
        limiterCapacity: Int = RateLimiter.defaultCapacity,
        providers: String? = nil, userFields: String? = nil, sharing: Harness? = nil, events: EventLog = EventLog()
    ) throws {
        let base = try AuthGraphQL.schema()
        let fieldsFile = try userFields.map { try UserFieldsFile(sdl: $0, sourceName: "user-fields.graphql", base: base) }
        var configuration = configuration
        configuration.userFields = fieldsFile?.fields ?? .none
        database = try sharing?.database ?? TestDatabase.create()
        pool = database.makePool(size: poolSize)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        hashing = PasswordHashingPool(
            hasher: try PasswordHasher(cost: cost), workers: workers, maxWait: maxWait,
            meter: hashingMeter ?? PasswordHashingPool.threadCPUSeconds, onVerify: onVerify)
        let clock = TestClock()
        self.clock = clock
        let linkBox = try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .mailLinks)
        self.linkBox = linkBox
        let keyBox = try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .signingKeys)
        self.keyBox = keyBox
        let logs = self.logs
        let log: @Sendable (String) -> Void = { line in logs.append(line) }
        auth = AuthService(
            pool: pool, hashing: hashing,
            options: .init(
                configuration: configuration, limiterCapacity: limiterCapacity,
                providers: ProviderRegistry(configuration: try ProviderConfiguration.parse(providers), now: { clock.now() }),
                totpBox: try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .totp), linkBox: linkBox, keyBox: keyBox,
                now: { clock.now() }, log: log, events: events))
        // As the server does before it serves: the first signing key.
        try auth.tokens.keys.refresh()
        let schema = try fieldsFile.map { try AuthGraphQL.schema(userFields: $0) } ?? base
        let executable = try AuthGraphQL.executableSchema(auth: auth, schema: schema, log: log)
        service = GraphQLService(executable: executable)
    }

    deinit {
        hashing.shutdown()
        pool.close()
    }

    var capturedLogs: [String] { logs.lines }

    /// Runs `query` as one HTTP request with these headers would.
    func graphql(
        _ query: String, variables: JSONObject = [:], token: String? = nil, installationId: String? = nil,
        master: String? = nil, address: String = "192.0.2.1", operationName: String? = nil, acceptLanguage: String? = nil,
        userAgent: String? = nil
    ) -> ExecutionResult {
        request(query, variables: variables, token: token, installationId: installationId, master: master,
                address: address, operationName: operationName, acceptLanguage: acceptLanguage, userAgent: userAgent).result
    }

    /// ``graphql(_:variables:token:installationId:master:address:operationName:)`` with the request's context.
    func request(
        _ query: String, variables: JSONObject = [:], token: String? = nil, installationId: String? = nil,
        master: String? = nil, address: String = "192.0.2.1", operationName: String? = nil, acceptLanguage: String? = nil,
        userAgent: String? = nil
    ) -> (result: ExecutionResult, context: RequestContext) {
        let request = AuthRequest(
            clientAddress: address, installationId: installationId, masterKey: auth.core.masterKey(master), userAgent: userAgent,
            acceptLanguage: acceptLanguage)
        switch service.prepare(query) {
        case .failure(let failure):
            return (ExecutionResult(data: nil, errors: failure.errors), RequestContext(sessionToken: token, request: request))
        case .success(let prepared):
            // The viewer settled before execution, as the server does for an operation whose
            // resolvers read it and do not block.
            var viewer = RequestContext.Viewer.notAsked
            if let operation = service.operation(of: prepared, named: operationName),
                prepared.placement(of: operation) == .pureOnceSettled
            {
                viewer = token.map { token in .init(Result { () throws(AuthError) in try auth.sessions.viewer(token: token) }) } ?? .noToken
            }
            let context = RequestContext(sessionToken: token, request: request, viewer: viewer)
            return (service.execute(prepared, operationName: operationName, variables: variables, context: context), context)
        }
    }

    // MARK: Shortcuts

    /// signUp with these fields; the whole result.
    func signUp(_ fields: JSON?, clientMutationId: String? = nil, token: String? = nil, installationId: String? = nil,
                master: String? = nil, address: String = "192.0.2.1") -> ExecutionResult {
        var input = JSONObject()
        if let fields { input["fields"] = fields }
        if let clientMutationId { input["clientMutationId"] = .string(clientMutationId) }
        return graphql(Queries.signUp, variables: ["input": .object(input)], token: token, installationId: installationId,
                       master: master, address: address)
    }

    /// logIn; the whole result.
    func logIn(_ username: String, _ password: String, authData: JSON? = nil, clientMutationId: String? = nil,
               token: String? = nil, installationId: String? = nil, address: String = "192.0.2.1") -> ExecutionResult {
        var input: JSONObject = ["username": .string(username), "password": .string(password)]
        if let authData { input["authData"] = authData }
        if let clientMutationId { input["clientMutationId"] = .string(clientMutationId) }
        return graphql(Queries.logIn, variables: ["input": .object(input)], token: token, installationId: installationId,
                       address: address)
    }

    /// Signs up `username` (no errors expected) and returns the payload's viewer.
    func signedUp(_ username: String = "alice", password: String = Harness.password, email: String? = nil,
                  installationId: String? = nil) throws -> JSON {
        var fields: JSONObject = ["username": .string(username), "password": .string(password)]
        if let email { fields["email"] = .string(email) }
        let result = signUp(.object(fields), installationId: installationId)
        guard result.errors.isEmpty, let viewer = result.data?["signUp"]?["viewer"] else {
            throw HarnessError("signUp failed: \(result.json)")
        }
        return viewer
    }

    /// Logs in (no errors expected) and returns the session token.
    func loggedIn(
        _ username: String, _ password: String = Harness.password, installationId: String? = nil, address: String = "192.0.2.1"
    ) throws -> String {
        let result = logIn(username, password, installationId: installationId, address: address)
        guard result.errors.isEmpty, let token = result.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue else {
            throw HarnessError("logIn failed: \(result.json)")
        }
        return token
    }

    func viewer(token: String?) -> ExecutionResult {
        graphql(Queries.viewer, token: token)
    }

    func logOut(token: String?, clientMutationId: String? = nil) -> ExecutionResult {
        var input = JSONObject()
        if let clientMutationId { input["clientMutationId"] = .string(clientMutationId) }
        return graphql(Queries.logOut, variables: ["input": .object(input)], token: token)
    }

    static let password = "correct horse battery staple"

    // MARK: Database

    func count(_ query: PostgresQuery) throws -> Int {
        try pool.withConnection { c in try c.queryFirst(query)!.decode(Int.self, at: 0) }
    }

    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try pool.withConnection { c in try Array(c.query(query)) }
    }

    func execute(_ query: PostgresQuery) throws {
        _ = try pool.withConnection { c in try c.execute(query) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Real time plus an offset tests can advance (session expiry, rate-limit windows).
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// The one error of `result`, as (code, message), or nil when there is not exactly one.
func onlyError(_ result: ExecutionResult) -> (code: Int?, message: String)? {
    guard result.errors.count == 1, let error = result.errors.first else { return nil }
    return (error.extensions?["code"]?.intValue, error.message)
}

/// The operations a Parse GraphQL client sends.
enum Queries {
    static let userFields = """
        id objectId username email emailVerified authData authDataResponse createdAt updatedAt
        ACL { users { userId read write } roles { roleName read write } public { read write } }
        """
    static let signUp = """
        mutation SignUp($input: SignUpInput!) {
          signUp(input: $input) { clientMutationId viewer { sessionToken user { \(userFields) } } }
        }
        """
    static let logIn = """
        mutation LogIn($input: LogInInput!) {
          logIn(input: $input) { clientMutationId viewer { sessionToken user { \(userFields) } } }
        }
        """
    static let logOut = """
        mutation LogOut($input: LogOutInput!) { logOut(input: $input) { ok clientMutationId } }
        """
    static let viewer = """
        query Viewer { viewer { sessionToken user { \(userFields) } } }
        """
}

/// Runs `body(index)` on `threads` new threads released at once; the results in index order
/// (nil when the threads did not finish within 30 seconds).
func simultaneously<T: Sendable>(_ threads: Int, _ body: @escaping @Sendable (Int) -> T) -> [T]? {
    let results = Mutex<[Int: T]>([:])
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for index in 0..<threads {
        group.enter()
        Thread {
            start.wait()
            let result = body(index)
            results.withLock { $0[index] = result }
            group.leave()
        }.start()
    }
    for _ in 0..<threads { start.signal() }
    guard group.wait(timeout: .now() + 30) == .success else { return nil }
    return results.withLock { all in (0..<threads).compactMap { all[$0] } }
}
