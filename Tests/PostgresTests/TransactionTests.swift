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

    /// Statements sent with the `COMMIT` run last in the transaction, in order, in one round trip
    /// with it (after a first use prepares them), and the connection is usable afterwards.
    @Test func statementsSentWithTheCommitRunLastInOneRoundTrip() throws {
        func write(_ n: Int32) throws {
            try connection.transaction { tx in
                tx.executeWithCommit("INSERT INTO items VALUES (\(n), \("late"))")
                tx.executeWithCommit("UPDATE items SET label = label || '+' WHERE id = \(n)")
                try tx.execute("INSERT INTO items VALUES (\(n + 100), \("early"))")
            }
        }
        try write(1)
        _ = connection.takeRoundTrips()
        try write(2)
        #expect(connection.takeRoundTrips() == 3, "BEGIN, the early insert, the pipeline")
        #expect(try count() == 4)
        #expect(try connection.queryFirst("SELECT label FROM items WHERE id = 2")?.decode(String.self, at: 0) == "late+")
        #expect(!connection.isInTransaction)
    }

    /// A statement sent with the `COMMIT` that fails rolls the whole transaction back and throws
    /// its own error; the connection stays usable.
    @Test func aFailingStatementSentWithTheCommitRollsBack() throws {
        for _ in 0..<2 {
            let error = try #require(throws: PostgresError.self) {
                try connection.transaction { tx in
                    try tx.execute("INSERT INTO items VALUES (\(Int32(1)), \("one"))")
                    tx.executeWithCommit("INSERT INTO items VALUES (\(Int32(2)), \("two"))")
                    tx.executeWithCommit("INSERT INTO items VALUES (\(Int32(1)), \("dup"))")
                }
            }
            #expect(error.sqlState == "23505")
            #expect(try count() == 0)
            #expect(!connection.isInTransaction && !connection.isBroken)
        }
    }
}
