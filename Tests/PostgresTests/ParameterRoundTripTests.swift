import Foundation
import Postgres
import ServerTestSupport
import Testing

/// Every parameter type goes to the server and back (binary in, binary out), NULLs included.
@Suite struct ParameterRoundTripTests {
    let connection: Connection

    init() throws {
        connection = try TestDatabase.create().connect()
    }

    func roundTrip<Value: PostgresEncodable & PostgresDecodable & Equatable>(_ value: Value, cast: String) throws -> Value {
        let row = try #require(try connection.queryFirst(PostgresQuery(unsafeSQL: "SELECT $1::\(cast) AS v", bindings: {
            var b = PostgresBindings(); b.append(value); return b
        }())))
        return try row.decode("v", as: Value.self)
    }

    @Test(arguments: ["", "plain", "ünïcødé ✓ 🎉", "quote ' and \\ backslash", String(repeating: "x", count: 10_000)])
    func strings(_ value: String) throws {
        #expect(try roundTrip(value, cast: "text") == value)
    }

    @Test(arguments: [Int.min, -1, 0, 1, Int(Int32.max) + 1, Int.max])
    func ints(_ value: Int) throws {
        #expect(try roundTrip(value, cast: "int8") == value)
        #expect(try roundTrip(Int64(value), cast: "int8") == Int64(value))
    }

    @Test(arguments: [Int32.min, -7, 0, Int32.max])
    func int32s(_ value: Int32) throws {
        #expect(try roundTrip(value, cast: "int4") == value)
    }

    @Test(arguments: [true, false])
    func bools(_ value: Bool) throws {
        #expect(try roundTrip(value, cast: "bool") == value)
    }

    @Test(arguments: [[], [0], [0, 255, 1, 128], (0..<32).map { UInt8($0 * 7 % 256) }] as [[UInt8]])
    func bytes(_ value: [UInt8]) throws {
        #expect(try roundTrip(value, cast: "bytea") == value)
    }

    @Test(arguments: [[], [[]], [[1, 2, 3], [255]], (0..<64).map { i in (0..<32).map { UInt8((i + $0) % 256) } }] as [[[UInt8]]])
    func byteaArrays(_ value: [[UInt8]]) throws {
        let result = try connection.query(PostgresQuery(unsafeSQL: """
            SELECT e, n FROM unnest($1::bytea[]) WITH ORDINALITY AS t(e, n) ORDER BY n
            """, bindings: { var b = PostgresBindings(); b.append(PostgresArray(value)); return b }()))
        #expect(try result.map { try $0.decode("e", as: [UInt8].self) } == value)
    }

    @Test func arraysCarryNullsAndTheirElementType() throws {
        let row = try #require(try connection.queryFirst(PostgresQuery(unsafeSQL: """
            SELECT $1::text AS t, cardinality($2::int8[]) AS c, $2::int8[]::text AS i
            """, bindings: {
                var b = PostgresBindings()
                b.append(PostgresArray(["a", nil, "it's \"q\""] as [String?]))
                b.append(PostgresArray([Int.min, 0, Int.max]))
                return b
            }())))
        #expect(try row.decode("t", as: String.self) == #"{a,NULL,"it's \"q\""}"#)
        #expect(try row.decode("c", as: Int.self) == 3)
        #expect(try row.decode("i", as: String.self) == "{-9223372036854775808,0,9223372036854775807}")
    }

    @Test(arguments: [0, 1_700_000_000.123, -86_400.5, 946_684_800, 4_102_444_800.999] as [Double])
    func dates(_ seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(try roundTrip(date, cast: "timestamptz") == date)
    }

    @Test func dateIsKeptToTheMillisecond() throws {
        let precise = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        let back = try roundTrip(precise, cast: "timestamptz")
        #expect(back == Date(timeIntervalSince1970: 1_700_000_000.123))
    }

    @Test func dateAgreesWithServerTextForm() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let row = try #require(try connection.queryFirst(
            "SELECT to_char(\(date) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS t"))
        #expect(try row.decode("t", as: String.self) == "2023-11-14 22:13:20.250")
    }

    @Test(arguments: [#"{"a":1}"#, #"[1,2,{"b":null}]"#, #""text""#, "null", #"{"ü":"✓"}"#])
    func json(_ text: String) throws {
        let row = try #require(try connection.queryFirst("SELECT \(PostgresJSON(text)) AS j, \(text)::json AS k"))
        // jsonb normalises whitespace; compare through the server's own json form.
        let viaJSONB = try row.decode("j", as: PostgresJSON.self)
        let check = try #require(try connection.queryFirst("SELECT \(viaJSONB) = \(PostgresJSON(text)) AS same"))
        #expect(try check.decode("same", as: Bool.self))
        #expect(try row.decode("k", as: PostgresJSON.self).text == text)
    }

    @Test func nullsOfEveryTypeRoundTrip() throws {
        let noString: String? = nil, noInt: Int? = nil, noInt32: Int32? = nil, noBool: Bool? = nil
        let noBytes: [UInt8]? = nil, noDate: Date? = nil, noJSON: PostgresJSON? = nil
        let row = try #require(try connection.queryFirst(
            """
            SELECT \(noString) AS s, \(noInt) AS i, \(noInt32) AS i4, \(noBool) AS b, \(noBytes) AS y,
                   \(noDate) AS d, \(noJSON) AS j, \(noString) IS NULL AS really_null
            """))
        #expect(try row.decode("s", as: String?.self) == nil)
        #expect(try row.decode("i", as: Int?.self) == nil)
        #expect(try row.decode("i4", as: Int32?.self) == nil)
        #expect(try row.decode("b", as: Bool?.self) == nil)
        #expect(try row.decode("y", as: [UInt8]?.self) == nil)
        #expect(try row.decode("d", as: Date?.self) == nil)
        #expect(try row.decode("j", as: PostgresJSON?.self) == nil)
        #expect(try row.decode("really_null", as: Bool.self))
    }

    @Test func optionalsWithValuesRoundTrip() throws {
        let some: String? = "here"
        let row = try #require(try connection.queryFirst("SELECT \(some) AS s"))
        #expect(try row.decode("s", as: String?.self) == "here")
    }

    @Test func preparedStatementsAreCachedBySQLText() throws {
        let before = connection.preparedStatementCount
        for value in 0..<5 { _ = try connection.query("SELECT \(value) + 1 AS n") }
        #expect(connection.preparedStatementCount == before + 1)
        _ = try connection.query("SELECT \(1) + 2 AS n")
        #expect(connection.preparedStatementCount == before + 2)
    }

    @Test func statementsSurviveASchemaChange() throws {
        try connection.unsafeExecuteScript("CREATE TABLE t (a int)")
        try connection.execute("INSERT INTO t VALUES (\(Int32(1)))")
        _ = try connection.query("SELECT * FROM t")
        try connection.unsafeExecuteScript("ALTER TABLE t ADD COLUMN b text")
        let row = try #require(try connection.queryFirst("SELECT * FROM t"))
        #expect(row.result.columnNames == ["a", "b"])
    }

    @Test func affectedRowsAreReported() throws {
        try connection.unsafeExecuteScript("CREATE TABLE n (v int)")
        #expect(try connection.execute("INSERT INTO n SELECT generate_series(1, \(Int32(7)))") == 7)
        #expect(try connection.execute("DELETE FROM n WHERE v > \(Int32(4))") == 3)
    }
}
