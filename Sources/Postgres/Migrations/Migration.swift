/// One versioned schema change, compiled into the binary.
public struct Migration: Sendable, Hashable {
    /// Positive, unique, applied in ascending order.
    public let version: Int
    /// A short name, recorded in `schema_migrations`.
    public let name: String
    /// Trusted SQL text (may hold several statements), run in one transaction.
    public let sql: String

    /// A migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
