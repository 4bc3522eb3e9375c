internal import CLibPQ
import Foundation
import Threading

/// One PostgreSQL connection (libpq), with a prepared-statement cache.
///
/// Owns one `PGconn`, closed by `deinit` (`PQfinish`). Not thread-safe: one thread at a time uses a
/// connection (a ``Pool`` hands each to one borrower), hence `@unchecked Sendable` so it may move
/// between threads. libpq is blocking: never call it from Swift concurrency's cooperative threads.
///
/// All statements are parameterised; results come back in binary format. Each distinct SQL text
/// (with its parameter types) is prepared once per connection as a named statement (`gh<n>`).
public final class Connection: @unchecked Sendable, PostgresQueryable {
    private struct StatementKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    private var handle: OpaquePointer?
    private var statements: [StatementKey: String] = [:]
    private var statementCounter = 0
    private let cacheLimit: Int
    private var broken = false
    /// What runs once the transaction in progress commits (``Transaction/afterCommit(_:)``).
    private var commitActions: [() -> Void] = []
    /// Statements sent with the transaction's `COMMIT` (``Transaction/executeWithCommit(_:)``).
    private var commitStatements: [PostgresQuery] = []
    /// Results received through the error funnel since the pool last took the count: one per
    /// round trip to the server (a statement, a prepare, `BEGIN`, `COMMIT`).
    private var roundTrips = 0

    /// Opens a connection from a libpq URI or conninfo string, with default timeouts.
    public convenience init(_ connectionString: String) throws(PostgresError) {
        try self.init(configuration: ConnectionConfiguration(connectionString))
    }

    /// Opens a connection and sets its `statement_timeout` and run-time parameters.
    public init(configuration: ConnectionConfiguration) throws(PostgresError) {
        cacheLimit = configuration.preparedStatementCacheSize
        // Keywords are processed in order and the expanded connection string comes last, so its own
        // connect_timeout and TCP settings (if any) override our defaults.
        let defaults = [("connect_timeout", String(configuration.connectTimeoutSeconds))] + ConnectionConfiguration.tcpDefaults
        let keywords = defaults.map(\.0) + ["dbname"]
        let values = defaults.map(\.1) + [configuration.connectionString]
        let conn = withCStringArray(keywords) { k in
            withCStringArray(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let conn else {
            throw PostgresError(.connection, message: "out of memory creating a libpq connection")
        }
        handle = conn
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(conn))
            PQfinish(conn)
            handle = nil
            throw PostgresError(.connection, message: message, sqlState: "08001")
        }
        // Notices (e.g. "relation already exists, skipping") would go to stderr; drop them. libpq
        // also reports a FATAL error that arrives while idle (backend terminated, server shutting
        // down) as a notice: that marks the connection broken. The context is this connection,
        // unretained: the PGconn (and with it the receiver) never outlives `self`.
        PQsetNoticeReceiver(conn, connectionNoticeReceiver, Unmanaged.passUnretained(self).toOpaque())
        var parameters = configuration.runtimeParameters
        if configuration.statementTimeoutMilliseconds > 0 {
            parameters["statement_timeout"] = String(configuration.statementTimeoutMilliseconds)
        }
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            try execute("SELECT set_config(\(name), \(value), false)")
        }
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection now (idempotent).
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        broken = true
    }

    /// Whether the connection must be discarded: closed, lost, or failed with a connection-class error.
    public var isBroken: Bool {
        guard let handle, !broken else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// Whether a transaction is open (or failed and not yet rolled back) on this connection.
    public var isInTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) != PQTRANS_IDLE
    }

    /// The server's process id (for diagnostics and tests).
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// Cheap liveness check before reuse: reads whatever the server sent while idle (no round
    /// trip). A server that shut down or restarted has closed the socket, which libpq then reports
    /// as `CONNECTION_BAD`.
    package func checkAlive() -> Bool {
        guard let handle, !broken else { return false }
        // A terminated backend sends a FATAL message, then EOF; libpq sees the EOF only on a later
        // read, so read while the socket stays readable (a few rounds at most).
        for _ in 0..<4 {
            let read = PQconsumeInput(handle)
            // PQisBusy parses what arrived; a FATAL notice sets `broken` (see the notice receiver).
            _ = PQisBusy(handle)
            if read == 0 || broken || PQstatus(handle) != CONNECTION_OK {
                broken = true
                return false
            }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) <= 0 { return true }
        }
        return true
    }

    // MARK: Notifications

    /// Starts listening on `channel` (LISTEN). The channel is a fixed name chosen by the
    /// program (lower-case letters, digits and `_`), never client input.
    public func listen(_ channel: String) throws(PostgresError) {
        guard let first = channel.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) || first == UInt8(ascii: "_"),
            channel.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") })
        else {
            throw PostgresError(.usage, message: "invalid channel name for LISTEN")
        }
        try unsafeExecuteScript("LISTEN \(channel)")
    }

    /// Waits up to `timeout` seconds for notifications on the channels this connection
    /// listens to, and returns those that arrived (possibly none). Throws a connection
    /// error when the connection is lost: the caller reconnects and listens again.
    public func waitForNotifications(timeout: Double) throws(PostgresError) -> [PostgresNotification] {
        let conn = try liveHandle()
        var received = Self.drainNotifications(conn)
        if !received.isEmpty { return received }
        var descriptor = pollfd(fd: PQsocket(conn), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout) * 1000))
        if ready < 0 && errno != EINTR {
            broken = true
            throw PostgresError(.connection, message: "waiting for notifications failed", sqlState: "08006")
        }
        if ready > 0 {
            if PQconsumeInput(conn) == 0 || PQstatus(conn) != CONNECTION_OK {
                broken = true
                throw PostgresError(.connection, message: Self.trimmed(PQerrorMessage(conn)), sqlState: "08006")
            }
            received = Self.drainNotifications(conn)
        }
        if broken { throw PostgresError(.connection, message: "the server closed the connection", sqlState: "08006") }
        return received
    }

    private static func drainNotifications(_ conn: OpaquePointer) -> [PostgresNotification] {
        var out: [PostgresNotification] = []
        while let notify = PQnotifies(conn) {
            out.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra),
                backendPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return out
    }

    /// Called by libpq (through `connectionNoticeReceiver`) for each notice on this connection.
    fileprivate func received(notice: OpaquePointer?) {
        guard let notice, let severity = PQresultErrorField(notice, Int32(UInt8(ascii: "V"))) else { return }
        let level = String(cString: severity)
        if level == "FATAL" || level == "PANIC" { broken = true }
    }

    /// The value libpq uses for connection option `keyword` (`PQconninfo`): the connection
    /// string's, else ours, else libpq's default; nil when it has none.
    package func connectionOption(_ keyword: String) -> String? {
        guard let handle, let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// The connection's socket descriptor (`PQsocket`; -1 when closed), for tests of its options.
    package var socketDescriptor: Int32 {
        guard let handle else { return -1 }
        return PQsocket(handle)
    }

    /// The number of prepared statements cached on this connection.
    package var preparedStatementCount: Int { statements.count }

    /// The round trips made since the last call (``Pool/roundTripCount`` adds them up at check-in).
    package func takeRoundTrips() -> Int {
        defer { roundTrips = 0 }
        return roundTrips
    }

    // MARK: Statements

    /// Runs a parameterised statement, prepared once per connection, and returns its rows.
    public func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresResult {
        EventThread.assertMayBlock("A PostgreSQL statement ran")
        let conn = try liveHandle()
        let key = StatementKey(sql: query.sql, types: query.bindings.types)
        if let name = statements[key] {
            do {
                return try check(execPrepared(conn, name: name, bindings: query.bindings))
            } catch let error where error.sqlState == "0A000" && !isInTransaction && !isBroken {
                // "cached plan must not change result type" after a schema change: prepare afresh once.
                statements[key] = nil
                deallocate(conn, name)
                return try prepareAndRun(conn, key: key, bindings: query.bindings)
            }
        }
        if statements.count < cacheLimit {
            return try prepareAndRun(conn, key: key, bindings: query.bindings)
        }
        let result = withParameters(query.bindings) { count, types, values, lengths, formats in
            PQexecParams(conn, query.sql, count, types, values, lengths, formats, 1)
        }
        return try check(result)
    }

    private func prepareAndRun(_ conn: OpaquePointer, key: StatementKey, bindings: PostgresBindings)
        throws(PostgresError) -> PostgresResult
    {
        try check(execPrepared(conn, name: try prepare(conn, key), bindings: bindings))
    }

    /// Prepares `key`'s statement under a new name and caches it; the name.
    private func prepare(_ conn: OpaquePointer, _ key: StatementKey) throws(PostgresError) -> String {
        statementCounter += 1
        let name = "gh\(statementCounter)"
        _ = try check(key.types.withUnsafeBufferPointer { types in
            PQprepare(conn, name, key.sql, Int32(types.count), types.baseAddress)
        })
        statements[key] = name
        return name
    }

    private func execPrepared(_ conn: OpaquePointer, name: String, bindings: PostgresBindings) -> OpaquePointer? {
        withParameters(bindings) { count, _, values, lengths, formats in
            PQexecPrepared(conn, name, count, values, lengths, formats, 1)
        }
    }

    private func deallocate(_ conn: OpaquePointer, _ name: String) {
        // The name is ours ("gh<n>"), never caller text.
        if let result = PQexec(conn, "DEALLOCATE \(name)") { PQclear(result) }
    }

    /// Runs trusted SQL text without parameters; it may hold several statements (migrations,
    /// `LISTEN`, `CREATE DATABASE`). The name says it: never pass text containing untrusted data.
    public func unsafeExecuteScript(_ sql: String) throws(PostgresError) {
        let conn = try liveHandle()
        _ = try check(PQexec(conn, sql))
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: `COMMIT` when it returns, `ROLLBACK` when it throws (the error
    /// is rethrown). If the transaction failed inside `body` but `body` returned anyway, `COMMIT`
    /// rolls back and this throws ``PostgresError/Kind/transactionRolledBack``. If `ROLLBACK`
    /// itself fails, the connection is marked broken so that a pool discards it.
    public func transaction<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        let conn = try liveHandle()
        _ = try check(PQexec(conn, "BEGIN"))
        commitActions = []
        commitStatements = []
        defer {
            commitActions = []
            commitStatements = []
        }
        let value: Result
        do {
            value = try body(Transaction(connection: self))
        } catch {
            rollbackIfNeeded()
            throw error
        }
        let commit: PostgresResult
        do {
            commit = commitStatements.isEmpty ? try check(PQexec(conn, "COMMIT")) : try commitPipelined(conn)
        } catch {
            rollbackIfNeeded()
            throw error
        }
        if commit.commandTag == "ROLLBACK" {
            throw PostgresError(.transactionRolledBack, message: "a statement failed inside the transaction")
        }
        for action in commitActions { action() }
        return value
    }

    /// Runs `action` after the transaction in progress commits (never if it rolls back).
    func afterCommit(_ action: @escaping () -> Void) {
        commitActions.append(action)
    }

    /// Queues `query` to be sent with the transaction's `COMMIT`.
    func executeWithCommit(_ query: PostgresQuery) {
        commitStatements.append(query)
    }

    /// Sends the queued statements and `COMMIT` in one pipeline (one round trip) and returns
    /// `COMMIT`'s result, or throws the first statement's error (the server then skips the rest,
    /// and the transaction is left failed for `transaction` to roll back). A statement not yet
    /// prepared on this connection is prepared first, outside the pipeline.
    private func commitPipelined(_ conn: OpaquePointer) throws(PostgresError) -> PostgresResult {
        var names: [String?] = []
        for query in commitStatements {
            let key = StatementKey(sql: query.sql, types: query.bindings.types)
            if let name = statements[key] {
                names.append(name)
            } else if statements.count < cacheLimit {
                names.append(try prepare(conn, key))
            } else {
                names.append(nil)
            }
        }
        guard PQenterPipelineMode(conn) == 1 else {
            broken = true
            throw PostgresError(.connection, message: Self.trimmed(PQerrorMessage(conn)), sqlState: "08006")
        }
        var sent = true
        for (query, name) in zip(commitStatements, names) where sent {
            sent = withParameters(query.bindings) { count, types, values, lengths, formats in
                if let name { return PQsendQueryPrepared(conn, name, count, values, lengths, formats, 1) }
                return PQsendQueryParams(conn, query.sql, count, types, values, lengths, formats, 1)
            } == 1
        }
        sent = sent && PQsendQueryParams(conn, "COMMIT", 0, nil, nil, nil, nil, 1) == 1 && PQpipelineSync(conn) == 1
        roundTrips += 1
        var firstError: PostgresError?
        var commit: PostgresResult?
        if sent {
            for index in 0...commitStatements.count {
                guard let result = PQgetResult(conn) else {
                    sent = false
                    break
                }
                if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                    PQclear(result)
                } else {
                    do {
                        let checked = try verify(result)
                        if index == commitStatements.count { commit = checked }
                    } catch {
                        if firstError == nil { firstError = error }
                    }
                }
                // Each statement's results end with a NULL.
                while let extra = PQgetResult(conn) { PQclear(extra) }
            }
        }
        if sent, let sync = PQgetResult(conn) {
            sent = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
        } else {
            sent = false
        }
        guard sent, PQexitPipelineMode(conn) == 1 else {
            broken = true
            throw firstError ?? PostgresError(.connection, message: Self.trimmed(PQerrorMessage(conn)), sqlState: "08006")
        }
        if let firstError { throw firstError }
        guard let commit else { throw PostgresError(.connection, message: "no result for COMMIT", sqlState: "08006") }
        return commit
    }

    /// Ends any open or failed transaction; used by `transaction` and by the pool on check-in.
    package func rollbackIfNeeded() {
        guard let handle, !isBroken, isInTransaction else { return }
        guard let result = PQexec(handle, "ROLLBACK") else {
            broken = true
            return
        }
        if PQresultStatus(result) != PGRES_COMMAND_OK { broken = true }
        PQclear(result)
        if isInTransaction { broken = true }
    }

    // MARK: Error funnel

    /// Marks the connection unusable (a pool discards it): its protocol state is unknown.
    func markBroken() { broken = true }

    func liveHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle, !broken else {
            throw PostgresError(.connection, message: "the connection is closed or broken", sqlState: "08003")
        }
        return handle
    }

    /// The one error funnel: every libpq result passes through here (a pipeline's through ``verify(_:)``).
    func check(_ result: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        roundTrips += 1
        return try verify(result)
    }

    /// ``check(_:)`` without counting a round trip.
    private func verify(_ result: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        guard let result else {
            let message = handle.map { Self.trimmed(PQerrorMessage($0)) } ?? "no connection"
            if isBroken { broken = true }
            throw PostgresError(.connection, message: message.isEmpty ? "no result from libpq" : message, sqlState: "08006")
        }
        let status = PQresultStatus(result)
        if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY {
            return PostgresResult(handle: result)
        }
        defer { PQclear(result) }
        if status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR {
            let error = Self.serverError(result)
            // A read-only server is a standby (or a demoted primary): a fresh connection may reach
            // the new primary (through a proxy, or libpq's target_session_attrs), this one never will.
            if error.isConnectionFailure || error.sqlState == SQLState.readOnlySQLTransaction || isBroken { broken = true }
            throw error
        }
        // COPY and pipeline results are not supported; get the connection out of that state by dropping it.
        broken = true
        throw PostgresError(.usage, message: "unsupported result status \(String(cString: PQresStatus(status)))")
    }

    private static func serverError(_ result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: pointer)
        }
        let sqlState = field("C")
        let message = field("M") ?? trimmed(PQresultErrorMessage(result))
        let kind: PostgresError.Kind = sqlState == nil ? .connection : .server
        return PostgresError(
            kind, message: message, sqlState: sqlState ?? "08006", detail: field("D"), hint: field("H"),
            constraint: field("n"), schema: field("s"), table: field("t"), column: field("c"))
    }

    private static func trimmed(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// libpq's notice callback: a plain C-convention function; the context is the `Connection`, unretained.
private func connectionNoticeReceiver(_ context: UnsafeMutableRawPointer?, _ notice: OpaquePointer?) {
    guard let context else { return }
    Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().received(notice: notice)
}

/// Passes the bindings to libpq as parallel C arrays, valid only inside `body`.
private func withParameters<R>(
    _ bindings: PostgresBindings,
    _ body: (
        Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
        UnsafePointer<Int32>?
    ) -> R
) -> R {
    let count = bindings.count
    if count == 0 { return body(0, nil, nil, nil, nil) }
    let formats = [Int32](repeating: 1, count: count)
    return bindings.bytes.withUnsafeBytes { raw in
        // A zero-length non-NULL value still needs a non-null pointer.
        var placeholder: CChar = 0
        return withUnsafePointer(to: &placeholder) { empty in
            let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            var values = [UnsafePointer<CChar>?](repeating: nil, count: count)
            for index in 0..<count where bindings.offsets[index] >= 0 {
                values[index] =
                    bindings.lengths[index] == 0 || base == nil
                    ? empty : UnsafePointer(base! + bindings.offsets[index])
            }
            return bindings.types.withUnsafeBufferPointer { types in
                bindings.lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        values.withUnsafeBufferPointer { values in
                            body(Int32(count), types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}

/// A NULL-terminated array of C strings, valid only inside `body`.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicated = strings.map { strdup($0) }
    defer { duplicated.forEach { free($0) } }
    let pointers = duplicated.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
