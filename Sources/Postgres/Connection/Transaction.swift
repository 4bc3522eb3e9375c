/// The handle passed to ``Connection/transaction(_:)``: runs statements inside the transaction.
///
/// Valid only inside the closure; the transaction commits when the closure returns and rolls back
/// when it throws.
public struct Transaction: PostgresQueryable {
    /// The connection the transaction runs on.
    public let connection: Connection

    /// Runs a statement inside the transaction.
    public func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresResult {
        try connection.query(query)
    }

    /// Runs `action` on this thread once the transaction has committed; never if it rolls back
    /// (telling others about a change only once they can see it).
    public func afterCommit(_ action: @escaping () -> Void) {
        connection.afterCommit(action)
    }

    /// Sends `query` with the transaction's `COMMIT`, in one round trip, instead of now: for a
    /// write nothing later in the transaction reads and whose result nobody needs (an audit
    /// entry). It runs in the transaction, last; if it fails, the transaction rolls back and
    /// ``Connection/transaction(_:)`` throws its error.
    public func executeWithCommit(_ query: PostgresQuery) {
        connection.executeWithCommit(query)
    }

    /// Runs trusted SQL text (no parameters, may hold several statements) inside the transaction.
    /// The name says it: never pass text containing untrusted data.
    public func unsafeExecuteScript(_ sql: String) throws(PostgresError) {
        try connection.unsafeExecuteScript(sql)
    }
}
