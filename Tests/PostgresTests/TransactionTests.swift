import Postgres
import ServerTestSupport
import Testing

@Suite struct TransactionTests {
    let connection: Connection

    init() throws {
        connection = try TestDatabase.create().connect()
        try connection.unsafeExecuteScript("CREATE TABLE items (id int PRIMARY KEY, label text)")
    }

    struct Boom: Error {}

    func count() throws -> Int {
        try #require(try connection.queryFirst("SELECT count(*) FROM items")).decode(Int.self, at: 0)
    }

    @Test func commitsOnSuccess() throws {
        let value = try connection.transaction { tx in
            try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("one"))")
            try tx.execute("INSERT INTO items VALUES (\(Int32(2)), \("two"))")
            return 42
        }
        #expect(value == 42)
        #expect(try count() == 2)
        #expect(!connection.isInTransaction)
    }

    @Test func rollsBackOnAThrownSwiftError() throws {
        #expect(throws: Boom.self) {
            try connection.transaction { tx in
                try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("one"))")
                throw Boom()
            }
        }
        #expect(try count() == 0)
        #expect(!connection.isInTransaction)
    }

    @Test func rollsBackOnAServerError() throws {
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { tx in
                try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("one"))")
                try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("dup"))")
            }
        }
        #expect(error.sqlState == "23505")
        #expect(try count() == 0)
        #expect(!connection.isInTransaction)
    }

    @Test func swallowedErrorInsideTransactionStillRollsBack() throws {
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { tx in
                try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("one"))")
                _ = try? tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("dup"))")
            }
        }
        #expect(error.kind == .transactionRolledBack)
        #expect(try count() == 0)
    }
}
