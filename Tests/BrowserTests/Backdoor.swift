import JSON
import Testing
import Postgres
import ServerTestSupport
import TestSupport

/// What the page tests do to a server besides clicking: GraphQL straight over HTTP, and reading
/// or changing rows of its database.
struct Backdoor {
    let server: InProcessServer

    init(_ server: InProcessServer) {
        self.server = server
    }

    /// A GraphQL request over a new connection, with the session `token` if given; the response's JSON.
    @discardableResult
    func graphQL(
        _ query: String, variables: JSONObject = [:], token: String? = nil, headers: [(String, String)] = []
    ) throws -> JSON {
        let connection = try HTTPConnection(port: server.server.port)
        let session = token.map { [("X-Parse-Session-Token", $0)] } ?? []
        return try connection.graphQL(query, variables: variables, headers: session + headers).json()
    }

    /// The `extensions.code` of the response's first error, if any.
    static func errorCode(_ response: JSON) -> Int? {
        response["errors"]?[0]?.at("extensions", "code")?.intValue
    }

    /// Signs up `username` (with `email`, if given); the new session's token.
    func signUp(_ username: String, password: String, email: String? = nil) throws -> String {
        var fields: JSONObject = ["username": .string(username), "password": .string(password)]
        if let email { fields["email"] = .string(email) }
        let response = try graphQL(
            "mutation ($input: SignUpInput!) { signUp(input: $input) { viewer { sessionToken } } }",
            variables: ["input": ["fields": .object(fields)]])
        return try #require(response.at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(response)")
    }

    /// Signs up ann (ann@example.com, larch-ridge-11), then asks for a mail by `mutation`
    /// (`sendVerificationEmail`, `resetPassword`); ann's session token and the link of the mail (`kind`).
    func signUpAnn(askingFor mutation: String, kind: String) throws -> (token: String, link: String) {
        let token = try signUp("ann", password: "larch-ridge-11", email: "ann@example.com")
        try graphQL("mutation { \(mutation)(input: {email: \"ann@example.com\"}) { ok } }")
        return (token, try link(kind))
    }

    /// Logs in from a device that says `userAgent`; the token, or nil with the error's code in `code`.
    func logIn(_ username: String, password: String, userAgent: String = "BackdoorTests/1.0") throws -> (token: String?, code: Int?) {
        let response = try graphQL(
            "mutation ($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken } } }",
            variables: ["input": ["username": .string(username), "password": .string(password)]],
            headers: [("User-Agent", userAgent)])
        return (response.at("data", "logIn", "viewer", "sessionToken")?.stringValue, Self.errorCode(response))
    }

    /// `viewer.user.emailVerified` for `token`, or nil when the token is refused.
    func emailVerified(token: String) throws -> Bool? {
        try graphQL("{ viewer { user { emailVerified } } }", token: token).at("data", "viewer", "user", "emailVerified")?.boolValue
    }

    /// The `extensions.code` of `viewer` with `token` (nil: the token works).
    func viewerCode(token: String) throws -> Int? {
        Self.errorCode(try graphQL("{ viewer { sessionToken } }", token: token))
    }

    /// The links of the outbox's messages of `kind` (`verify_email`, `reset_password`), oldest
    /// first: without an SMTP server a message stays in the outbox with its link (sealed).
    func links(_ kind: String) throws -> [String] {
        let connection = try Connection(server.server.settings.databaseURL!)
        return try connection.query("SELECT sealed_link FROM mail_outbox WHERE kind = \(kind) AND sealed_link IS NOT NULL ORDER BY id")
            .map { try #require(InProcessServer.openMailLink(try $0.decode([UInt8].self, at: 0))) }
    }

    /// The link of the newest message of `kind`.
    func link(_ kind: String) throws -> String {
        try #require(try links(kind).last, "no \(kind) message in the outbox")
    }

    /// Runs `query` in the server's database; the number of rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try Connection(server.server.settings.databaseURL!).query(query).affectedRows
    }
}
