/// SQL text plus bound parameters. Injection-safe by construction: string interpolation becomes a
/// `$n` placeholder and a bound parameter, never SQL text.
///
/// ```swift
/// let rows = try connection.query("SELECT object_id FROM users WHERE lower(username) = lower(\(name))")
/// ```
///
/// SQL assembled at run time needs the visibly unsafe ``init(unsafeSQL:bindings:)``.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The SQL text, with `$1`, `$2`, … placeholders.
    public let sql: String
    /// The parameters.
    public let bindings: PostgresBindings

    /// A query from SQL text that may have been assembled at run time. The caller guarantees the
    /// text contains no untrusted data; values go in `bindings` as `$n`.
    public init(unsafeSQL sql: String, bindings: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.bindings = bindings
    }

    /// A query from a string literal without interpolation.
    public init(stringLiteral value: String) {
        self.sql = value
        self.bindings = PostgresBindings()
    }

    /// A query from an interpolated literal: each interpolated value becomes a parameter.
    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.bindings = stringInterpolation.bindings
    }

    /// Builds SQL text and bindings from an interpolated literal.
    public struct StringInterpolation: StringInterpolationProtocol {
        @usableFromInline var sql = ""
        @usableFromInline var bindings = PostgresBindings()

        /// Reserves space.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        /// Literal SQL.
        public mutating func appendLiteral(_ literal: String) { sql += literal }

        /// A fragment of SQL text fixed at compile time (a shared column list): never data.
        public mutating func appendInterpolation(sql fragment: StaticString) { sql += fragment.description }

        /// A bound parameter (`$n`); `nil` optionals become NULL. Inlinable, as ``PostgresBindings/append(_:)``.
        @inlinable
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// A bound optional parameter (`$n`); `nil` becomes NULL typed as `Value`.
        @inlinable
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }
    }
}
