import Foundation
import Postgres
import ServerTestSupport
import Testing

/// Decode errors name the column and the types, and never the value.
@Suite struct DecodingTests {
    let connection: Connection

    init() throws {
        connection = try TestDatabase.create().connect()
    }

    struct Mismatch: Sendable, CustomStringConvertible {
        let sql: String
        let decode: @Sendable (PostgresRow) throws -> Void
        let expected: String
        var description: String { sql }
    }

    static let mismatches: [Mismatch] = [
        Mismatch(sql: "SELECT 'secret-value'::text AS username", decode: { _ = try $0.decode("username", as: Int.self) },
                 expected: #"column "username" has type text; cannot decode as Int"#),
        Mismatch(sql: "SELECT 4242::int4 AS failed_login_count", decode: { _ = try $0.decode("failed_login_count", as: String.self) },
                 expected: #"column "failed_login_count" has type int4; cannot decode as String"#),
        Mismatch(sql: "SELECT true AS email_verified", decode: { _ = try $0.decode("email_verified", as: Date.self) },
                 expected: #"column "email_verified" has type bool; cannot decode as Date"#),
        Mismatch(sql: "SELECT '\\xdeadbeef'::bytea AS token_digest", decode: { _ = try $0.decode("token_digest", as: PostgresJSON.self) },
                 expected: #"column "token_digest" has type bytea; cannot decode as PostgresJSON"#),
        Mismatch(sql: "SELECT NULL::text AS email", decode: { _ = try $0.decode("email", as: String.self) },
                 expected: #"column "email" (text) is NULL; expected non-optional String"#),
        Mismatch(sql: "SELECT 9999999999::int8 AS big", decode: { _ = try $0.decode("big", as: Int32.self) },
                 expected: #"column "big" (int8) value is out of range for Int32"#),
        Mismatch(sql: "SELECT 1 AS present", decode: { _ = try $0.decode("absent", as: Int.self) },
                 expected: #"no column named "absent" in the result"#),
    ]

    @Test(arguments: mismatches)
    func mismatchIsAClearDecodeError(_ mismatch: Mismatch) throws {
        let row = try #require(try connection.queryFirst(PostgresQuery(unsafeSQL: mismatch.sql)))
        let error = try #require(throws: PostgresError.self) { try mismatch.decode(row) }
        #expect(error.kind == .decode)
        #expect(error.message == mismatch.expected)
        #expect(!error.description.contains("secret-value") && !error.description.contains("4242")
                && !error.description.contains("9999999999"))
    }

    @Test func integersWidenAcrossColumnTypes() throws {
        let row = try #require(try connection.queryFirst("SELECT 7::int2 AS a, 8::int4 AS b, 9::int8 AS c"))
        #expect(try row.decode("a", as: Int.self) == 7)
        #expect(try row.decode("b", as: Int64.self) == 8)
        #expect(try row.decode("c", as: Int32.self) == 9)
    }

    @Test func textLikeTypesDecodeAsString() throws {
        let row = try #require(try connection.queryFirst(
            "SELECT 'a'::varchar AS v, 'b'::char(2) AS c, current_database()::name AS n, 'x' AS u"))
        #expect(try row.decode("v", as: String.self) == "a")
        #expect(try row.decode("c", as: String.self) == "b ")
        #expect(try row.decode("n", as: String.self).hasPrefix("test_"))
        #expect(try row.decode("u", as: String.self) == "x")
    }

    /// A column's bytes as sent (text as its UTF-8, integers big-endian), nil for NULL, empty for ''.
    @Test func rawBytesAsTheServerSentThem() throws {
        let row = try #require(try connection.queryFirst("SELECT 'naïve ✓'::text, NULL::text, ''::text, 258::int4"))
        #expect(row.withBytes(at: 0) { $0.map(Array.init) } == Array("naïve ✓".utf8))
        #expect(row.withBytes(at: 1) { $0 == nil })
        #expect(row.withBytes(at: 2) { $0?.count } == 0)
        #expect(row.withBytes(at: 3) { $0.map(Array.init) } == [0, 0, 1, 2])
    }

    @Test func infiniteTimestampsMapToDistantDates() throws {
        let row = try #require(try connection.queryFirst("SELECT 'infinity'::timestamptz AS f, '-infinity'::timestamptz AS p"))
        #expect(try row.decode("f", as: Date.self) == .distantFuture)
        #expect(try row.decode("p", as: Date.self) == .distantPast)
    }

    @Test func decodingByIndexAndIteratingRows() throws {
        let result = try connection.query("SELECT g AS n, g::text AS s FROM generate_series(1, \(3)) g")
        #expect(result.count == 3)
        #expect(try result.map { try $0.decode(Int.self, at: 0) } == [1, 2, 3])
        #expect(try result[2].decode(String.self, at: 1) == "3")
        let error = try #require(throws: PostgresError.self) { try result[0].decode(Int.self, at: 5) }
        #expect(error.kind == .decode)
    }
}
