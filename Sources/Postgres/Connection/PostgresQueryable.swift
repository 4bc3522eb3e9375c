/// Something that runs parameterised statements: a ``Connection`` or a ``Transaction``.
public protocol PostgresQueryable {
    /// Runs a statement and returns its rows.
    func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresResult
}

extension PostgresQueryable {
    /// Runs a statement and returns the number of rows it affected.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws(PostgresError) -> Int {
        try self.query(query).affectedRows
    }

    /// Runs a statement and returns its first row, if any.
    public func queryFirst(_ query: PostgresQuery) throws(PostgresError) -> PostgresRow? {
        let result = try self.query(query)
        return result.isEmpty ? nil : result[0]
    }
}
