import Foundation
import Postgres
import ServerTestSupport
import Testing

/// The database of an ``InProcessServer``, read and changed with SQL: the tests' way to the
/// links the server mails (it has no SMTP server configured, so they stay in `mail_outbox`),
/// and to age sessions and tokens without waiting.
struct ServerDatabase {
    /// A link's `username` and `token` query values.
    struct Link: Sendable {
        let username: String
        let token: String
        /// The whole link, as mailed.
        let url: String
    }

    let connection: Connection

    init(_ server: InProcessServer) throws {
        connection = try Connection(try #require(server.server.settings.databaseURL))
    }

    /// The link of the newest message of `kind` (`reset_password`, `verify_email`) to `recipient`.
    func link(_ kind: String, to recipient: String) throws -> Link? {
        guard
            let row = try connection.queryFirst("""
                SELECT sealed_link FROM mail_outbox WHERE kind = \(kind) AND lower(recipient) = lower(\(recipient))
                ORDER BY id DESC LIMIT 1
                """),
            let sealed = try row.decode([UInt8]?.self, at: 0)
        else { return nil }
        let url = try #require(InProcessServer.openMailLink(sealed))
        let items = URLComponents(string: url)?.queryItems ?? []
        guard let username = items.first(where: { $0.name == "username" })?.value,
            let token = items.first(where: { $0.name == "token" })?.value
        else { return nil }
        return Link(username: username, token: token, url: url)
    }

    /// Runs a statement.
    func execute(_ query: PostgresQuery) throws {
        try connection.execute(query)
    }
}
