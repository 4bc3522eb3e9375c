/// The one error type of the Postgres layer: server errors with their SQLSTATE and fields,
/// connection failures, decoding failures, pool exhaustion, migration and embedded-cluster errors.
///
/// `description` is redacted by construction: it never contains SQL parameter values. It shows the
/// SQLSTATE, its condition name, and the schema identifiers the server reported (constraint, table,
/// column). The server's `message` is shown only for SQLSTATE classes whose messages PostgreSQL
/// builds from identifiers alone; `detail` (e.g. `Key (lower(username))=(alice) already exists.`)
/// is never shown. Read the stored fields explicitly when you know they are safe to log.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Kind: Sendable, Equatable {
        /// The server rejected a statement; `sqlState` and the server fields are set.
        case server
        /// A connection could not be opened or was lost.
        case connection
        /// The pool could not provide a connection (checkout timeout, connect failure, shut down).
        case databaseUnavailable
        /// A column value could not be decoded into the requested Swift type.
        case decode
        /// `COMMIT` reported that the transaction had been rolled back (it was in a failed state).
        case transactionRolledBack
        /// A migration problem, e.g. the database schema is newer than this binary.
        case migration
        /// The embedded cluster could not be created, started or stopped.
        case embedded
        /// The API was used incorrectly (e.g. an unsupported result kind).
        case usage
    }

    /// What failed.
    public var kind: Kind
    /// The five-character SQLSTATE for server errors (and connection-class errors when known).
    public var sqlState: String?
    /// The primary message (server's `M` field, or ours). May contain data for some SQLSTATEs.
    public var message: String
    /// The server's `D` field. May contain data values: never logged by `description`.
    public var detail: String?
    /// The server's `H` field.
    public var hint: String?
    /// The constraint (or unique index) named by the server.
    public var constraint: String?
    /// The schema named by the server.
    public var schema: String?
    /// The table named by the server.
    public var table: String?
    /// The column named by the server.
    public var column: String?

    /// Creates an error; mostly used inside this module.
    public init(
        _ kind: Kind, message: String, sqlState: String? = nil, detail: String? = nil, hint: String? = nil,
        constraint: String? = nil, schema: String? = nil, table: String? = nil, column: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.schema = schema
        self.table = table
        self.column = column
    }

    /// The constraint name when this is a unique violation (SQLSTATE 23505), else `nil`.
    ///
    /// For a unique index (e.g. `users_username_lower_key` on `lower(username)`) PostgreSQL
    /// reports the index name as the constraint.
    public var uniqueViolationConstraint: String? {
        sqlState == SQLState.uniqueViolation ? (constraint ?? "") : nil
    }

    /// Whether this is a unique violation (SQLSTATE 23505), optionally on the named constraint.
    public func isUniqueViolation(constraint name: String? = nil) -> Bool {
        guard let found = uniqueViolationConstraint else { return false }
        return name == nil || found == name
    }

    /// Whether the connection that produced this error must be discarded: connection failures,
    /// SQLSTATE class 08 (connection exception) and 57P01–57P03 (shutdown, crash, cannot connect now).
    public var isConnectionFailure: Bool {
        if kind == .connection { return true }
        guard let code = sqlState else { return false }
        return code.hasPrefix("08") || code == "57P01" || code == "57P02" || code == "57P03"
    }

    /// Whether the database cannot take this work now, for a reason that passes by itself once a
    /// primary answers again (e.g. after a failover): no pooled connection in time, a lost or
    /// refused connection (``isConnectionFailure``), or a read-only server (SQLSTATE 25006: a
    /// standby, or a primary being demoted). The statement had no effect or its connection is
    /// gone; worth trying again later, not a bug.
    public var isUnavailable: Bool {
        kind == .databaseUnavailable || isConnectionFailure || sqlState == SQLState.readOnlySQLTransaction
    }

    /// Redacted: SQLSTATE, condition name and identifiers, never parameter values or `detail`.
    public var description: String {
        var text: String
        switch kind {
        case .server:
            let code = sqlState ?? "?????"
            text = "PostgreSQL error \(code)"
            if let name = SQLState.conditionName(code) { text += " (\(name))" }
            if SQLState.messageIsIdentifierOnly(code) {
                text += ": \(message)"
            }
            var where_: [String] = []
            if let constraint { where_.append("constraint \(constraint)") }
            if let table { where_.append("table \(table)") }
            if let column { where_.append("column \(column)") }
            if !where_.isEmpty { text += " [" + where_.joined(separator: ", ") + "]" }
        case .connection:
            text = "PostgreSQL connection error"
            if let sqlState { text += " \(sqlState)" }
            text += ": \(message)"
        case .databaseUnavailable:
            text = "database unavailable: \(message)"
        case .decode:
            text = "PostgreSQL decode error: \(message)"
        case .transactionRolledBack:
            text = "PostgreSQL transaction rolled back: \(message)"
        case .migration:
            text = "database migration error: \(message)"
        case .embedded:
            text = "embedded PostgreSQL error: \(message)"
        case .usage:
            text = "PostgreSQL usage error: \(message)"
        }
        return text
    }
}
