import Foundation
import Postgres
import ServerTestSupport
import Testing

/// Server errors carry SQLSTATE and fields; descriptions never carry parameter values.
@Suite struct ErrorTests {
    let connection: Connection

    init() throws {
        connection = try TestDatabase.create().connect()
        try connection.unsafeExecuteScript(
            """
            CREATE TABLE accounts (id int PRIMARY KEY, name text NOT NULL, age int CHECK (age >= 0));
            CREATE UNIQUE INDEX accounts_name_lower_key ON accounts (lower(name));
            """)
    }

    @Test func uniqueViolationCarriesConstraintAndTable() throws {
        try connection.execute("INSERT INTO accounts (id, name) VALUES (\(Int32(1)), \("Alice"))")
        let error = try #require(throws: PostgresError.self) {
            try connection.execute("INSERT INTO accounts (id, name) VALUES (\(Int32(2)), \("aLiCe"))")
        }
        #expect(error.kind == .server)
        #expect(error.sqlState == "23505")
        #expect(error.uniqueViolationConstraint == "accounts_name_lower_key")
        #expect(error.isUniqueViolation(constraint: "accounts_name_lower_key"))
        #expect(!error.isUniqueViolation(constraint: "accounts_pkey"))
        #expect(error.table == "accounts")
        // The detail names the value (lower-cased by the index expression): kept, never described.
        #expect(error.detail?.contains("alice") == true)
        #expect(!error.description.lowercased().contains("alice"))
        #expect(error.description.contains("23505") && error.description.contains("accounts_name_lower_key"))
    }

    /// Each statement fails with a value in its parameters; the value must not appear in the description.
    struct Leak: Sendable, CustomStringConvertible {
        let name: String
        let run: @Sendable (Connection, String) throws -> Void
        var description: String { name }
    }

    static let leaks: [Leak] = [
        Leak(name: "invalid integer text") { c, v in _ = try c.query("SELECT \(v)::int") },
        Leak(name: "invalid json") { c, v in _ = try c.query("SELECT \(PostgresJSON("{" + v))") },
        Leak(name: "invalid timestamp text") { c, v in _ = try c.query("SELECT \(v)::timestamptz") },
        Leak(name: "unique violation") { c, v in
            try c.execute("INSERT INTO accounts (id, name) VALUES (\(Int32(10)), \(v))")
            try c.execute("INSERT INTO accounts (id, name) VALUES (\(Int32(11)), \(v))")
        },
        Leak(name: "check violation") { c, v in
            try c.execute("INSERT INTO accounts (id, name, age) VALUES (\(Int32(12)), \(v), \(Int32(-1)))")
        },
        Leak(name: "not-null violation") { c, v in
            try c.execute("INSERT INTO accounts (id, name) VALUES (\(Int32(13)), \(v + "x") || NULL)")
        },
        Leak(name: "raise exception") { c, v in
            try c.unsafeExecuteScript("CREATE FUNCTION boom(t text) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'bad %', t; END $$")
            _ = try c.query("SELECT boom(\(v))")
        },
    ]

    @Test(arguments: leaks)
    func descriptionNeverContainsParameterValues(_ leak: Leak) throws {
        let secret = "s3cr3t-\(UInt32.random(in: 0...UInt32.max))"
        let error = try #require(throws: PostgresError.self) { try leak.run(connection, secret) }
        #expect(error.kind == .server)
        #expect(error.sqlState != nil)
        #expect(!error.description.contains(secret), "\(error.description)")
        #expect(!String(describing: error).contains(secret))
        #expect(!"\(error)".contains(secret))
    }

    @Test func syntaxErrorsKeepTheirMessage() throws {
        let error = try #require(throws: PostgresError.self) { _ = try connection.query("SELEC 1") }
        #expect(error.sqlState == "42601")
        #expect(error.description.contains("syntax error"))
    }

    /// A system error names the file and the reason: what an operator needs, and no data value.
    @Test func systemErrorsKeepTheirMessage() throws {
        let error = try #require(throws: PostgresError.self) {
            _ = try connection.query("SELECT pg_read_file('no-such-file-here')")
        }
        #expect(error.sqlState == "58P01")
        #expect(error.description.contains("undefined_file"), "\(error.description)")
        #expect(error.description.contains("no-such-file-here"), "\(error.description)")
    }

    @Test func connectionFailureIsClear() throws {
        let error = try #require(throws: PostgresError.self) {
            _ = try Connection("host=/nonexistent-gatehouse-dir dbname=x connect_timeout=2")
        }
        #expect(error.kind == .connection)
        #expect(error.isConnectionFailure)
    }

    @Test func statementTimeoutIsSetOnEveryConnection() throws {
        let db = try TestDatabase.create()
        let c = try Connection(configuration: ConnectionConfiguration(db.connectionString, statementTimeoutMilliseconds: 1234))
        let row = try #require(try c.queryFirst("SELECT current_setting('statement_timeout') AS t"))
        #expect(try row.decode("t", as: String.self) == "1234ms")
        let error = try #require(throws: PostgresError.self) { _ = try c.query("SELECT pg_sleep(\(5.0))") }
        #expect(error.sqlState == SQLState.queryCanceled)
        #expect(!c.isBroken, "a cancelled statement leaves the connection usable")
    }

    @Test func unsafeScriptRunsSeveralStatements() throws {
        try connection.unsafeExecuteScript("CREATE TABLE s1 (a int); CREATE TABLE s2 (b int); INSERT INTO s1 VALUES (1)")
        let row = try #require(try connection.queryFirst("SELECT count(*) AS n FROM s1, s2"))
        #expect(try row.decode("n", as: Int.self) == 0)
    }
}
