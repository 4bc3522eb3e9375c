import Auth
import Foundation
import GatehouseServer
import JSON
import JWT
import Postgres
import ServerTestSupport
import Sodium
import TestSupport
import Testing

/// Access tokens over HTTP (contract: tokens.md), checked as a service checks them: by PyJWT and
/// jwcrypto, each fetching the key set from the served URL. One server, and two sharing a
/// database through a rotation and a revocation by `gatehouse keys`.
@Suite(.timeLimit(.minutes(3)))
struct AccessTokenLiveTests {
    static let signUp = """
        mutation S($username: String!, $password: String!, $email: String) {
          signUp(input: {fields: {username: $username, password: $password, email: $email}}) { viewer { sessionToken } }
        }
        """
    /// The contract's example: a log-in answers the session and a token at once.
    static let logIn = """
        mutation L($username: String!, $password: String!, $audience: String) {
          logIn(input: {username: $username, password: $password}) {
            viewer { sessionToken accessToken(audience: $audience) { token expiresAt audience } user { objectId } }
          }
        }
        """
    static let accessToken = "query T($audience: String) { viewer { accessToken(audience: $audience) { token } } }"

    /// A server whose key set and tokens the tests check.
    static func server(_ configure: @escaping (inout Settings) -> Void = { _ in }) throws -> LiveServer {
        try LiveServer(level: .debug, configure)
    }

    /// The served key set's URL (on 127.0.0.1, where the server listens).
    static func keySetURL(_ live: LiveServer) -> String { "http://127.0.0.1:\(live.server.port)/.well-known/jwks.json" }

    static func verify(_ tokens: [String], at live: LiveServer, audience: String? = nil) throws -> [IndependentVerifiers.Verdicts] {
        try IndependentVerifiers.verify(
            tokens, keySet: .url(keySetURL(live)), issuer: live.server.publicURL, audience: audience ?? live.server.publicURL)
    }

    /// A session token of a new user `name` on `live`.
    static func session(_ live: LiveServer, _ name: String, headers: [(String, String)] = []) throws -> String {
        let response = try live.graphQL(
            signUp, variables: ["username": .string(name), "password": "larch-ridge-11"], headers: headers)
        return try #require(try response.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(response.text)")
    }

    /// A token of `session` from `live`.
    static func token(_ live: LiveServer, _ session: String, audience: String? = nil, headers: [(String, String)] = []) throws -> String {
        let response = try live.graphQL(
            accessToken, variables: audience.map { ["audience": .string($0)] } ?? [:],
            headers: [("X-Parse-Session-Token", session)] + headers)
        return try #require(try response.json().at("data", "viewer", "accessToken", "token")?.stringValue, "\(response.text)")
    }

    static func keyIds(_ live: LiveServer) throws -> [String] {
        try live.get("/.well-known/jwks.json").json()["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []
    }

    static func keyId(_ token: String) throws -> String? { try JSONWebToken(compact: token).keyId }

    /// A log-in answers a token with every claim, which both libraries accept for its audience
    /// only; in each algorithm.
    @Test(arguments: SigningAlgorithm.allCases)
    func aLogInsTokenVerifiesWithStockLibraries(_ algorithm: SigningAlgorithm) throws {
        let live = try Self.server {
            $0.appId = "shop"
            $0.accessTokenAudiences = ["orders", "billing"]
            $0.accessTokenAlgorithm = algorithm
        }
        let app = [("X-Parse-Application-Id", "shop")]
        _ = try live.graphQL(
            Self.signUp, variables: ["username": "alice", "password": "larch-ridge-11", "email": "alice@example.com"], headers: app)
        let response = try live.graphQL(Self.logIn, variables: ["username": "alice", "password": "larch-ridge-11"], headers: app)
        let viewer = try #require(try response.json().at("data", "logIn", "viewer"), "\(response.text)")
        let token = try #require(viewer.at("accessToken", "token")?.stringValue)
        #expect(viewer.at("accessToken", "audience") == "orders")
        let session = try #require(viewer["sessionToken"]?.stringValue)
        let billing = try Self.token(live, session, audience: "billing", headers: app)

        let verdicts = try Self.verify([token, billing], at: live, audience: "orders")
        #expect(verdicts[0].accepted, "\(verdicts[0])")
        #expect(verdicts[1].refused, "another audience's token: \(verdicts[1])")
        #expect(try Self.verify([billing], at: live, audience: "billing")[0].accepted)
        let claims = verdicts[0].pyjwt.claims
        #expect(verdicts[0].pyjwt.header["alg"] == .string(algorithm.rawValue))
        #expect(verdicts[0].pyjwt.header["typ"] == "at+jwt")
        #expect(claims["iss"] == .string(live.server.publicURL))
        #expect(claims["sub"] == viewer.at("user", "objectId"))
        #expect(claims["aud"] == "orders")
        #expect(claims["client_id"] == "shop")
        #expect(claims["amr"] == ["pwd"])
        #expect(claims["email"] == "alice@example.com" && claims["email_verified"] == false)
        #expect(claims["preferred_username"] == "alice")
        let issued = try #require(claims["iat"]?.intValue)
        #expect(claims["exp"] == .int(issued + 300) && claims["nbf"] == .int(issued))
        #expect(claims["sid"]?.stringValue?.count == 10 && claims["jti"]?.stringValue?.count == 22)
        #expect(claims["auth_time"]?.intValue.map { abs($0 - issued) <= 1 } == true, "the session was made by this log-in")
    }

    /// The profile joins the token: `name` and `picture` from the display name and photo, and
    /// each `@claim` field the user has a value of under its own name; a field without `@claim`
    /// (or without a value) stays out. Checked by PyJWT and jwcrypto.
    @Test func profileFieldsJoinTheToken() throws {
        let file = try UserFieldsLiveTests.setting("""
            enum Plan { FREE PRO }
            extend type User {
              plan: Plan @claim
              team: String @claim
              bio: String
            }
            """)
        let live = try Self.server { $0.userFields = file.setting }
        let made = try live.graphQL(
            "mutation S($fields: CreateUserFieldsInput) { signUp(input: {fields: $fields}) { viewer { sessionToken } } }",
            variables: ["fields": [
                "username": "carol", "password": "larch-ridge-11", "displayName": "Carol Ames",
                "photoURL": "https://example.com/carol.png", "plan": "PRO", "bio": "Hello",
            ]]).json()
        let session = try #require(made.at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(made)")
        let verdict = try Self.verify([try Self.token(live, session)], at: live)[0]
        #expect(verdict.accepted, "\(verdict)")
        let claims = verdict.pyjwt.claims
        #expect(claims["name"] == "Carol Ames" && claims["picture"] == "https://example.com/carol.png")
        #expect(claims["plan"] == "PRO")
        #expect(claims["team"] == nil && claims["bio"] == nil)
    }

    /// The key set and discovery document: the contract's caching headers, the public halves
    /// only, and a discovery document that agrees with the set. Both are answered without
    /// blocking (in debug builds a database call on an event thread fails an assertion).
    @Test func keySetAndDiscovery() throws {
        let live = try Self.server()
        let keySet = try live.get("/.well-known/jwks.json")
        #expect(keySet.status == 200)
        #expect(keySet.header("Cache-Control") == "public, max-age=300")
        #expect(keySet.header("Content-Type") == "application/json")
        let keys = try #require(try keySet.json()["keys"]?.arrayValue)
        try #require(keys.count == 1)
        #expect(keys[0].objectValue?.keys == ["kty", "crv", "x", "y", "kid", "alg", "use"])
        #expect(keys[0]["kty"] == "EC" && keys[0]["crv"] == "P-256" && keys[0]["alg"] == "ES256" && keys[0]["use"] == "sig")

        let discovery = try live.get("/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        #expect(discovery.header("Cache-Control") == "public, max-age=300")
        let document = try discovery.json()
        let issuer = live.server.publicURL
        #expect(document["issuer"] == .string(issuer))
        #expect(document["jwks_uri"] == .string(issuer + "/.well-known/jwks.json"))
        #expect(document["id_token_signing_alg_values_supported"] == ["ES256"])
        #expect(document["token_endpoint_auth_methods_supported"]?.arrayValue?.isEmpty == false)
        #expect(document["introspection_endpoint"] == .string(issuer + "/oauth/introspect"))
        // The same bytes again: served from memory.
        #expect(try live.get("/.well-known/jwks.json").body == keySet.body)
    }

    /// Two instances on one database sign with one key set: each one's tokens verify against the
    /// other's served set.
    @Test func twoInstancesSignWithOneKeySet() throws {
        let a = try Self.server()
        let b = try Self.server { $0.databaseURL = a.server.settings.databaseURL; $0.publicURL = a.server.publicURL }
        #expect(try a.get("/.well-known/jwks.json").body == b.get("/.well-known/jwks.json").body)
        let session = try Self.session(a, "alice")
        let fromA = try Self.token(a, session)
        let fromB = try Self.token(b, session)
        #expect(try Self.keyId(fromA) == Self.keyId(fromB))
        for verdict in try Self.verify([fromA, fromB], at: a) + Self.verify([fromA, fromB], at: b) {
            #expect(verdict.accepted, "\(verdict)")
        }
    }

    /// `gatehouse keys rotate`, then the next key's time to sign, then `gatehouse keys revoke` of
    /// the old key, on two instances: every token verifies against both served sets until the
    /// revocation, the next key is published before it signs, and after the revocation the old
    /// key's tokens are refused and inactive.
    @Test func rotationAndRevocationAcrossInstances() throws {
        let a = try Self.server()
        let database = try #require(a.server.settings.databaseURL)
        let b = try Self.server { $0.databaseURL = database; $0.publicURL = a.server.publicURL; $0.masterKey = Self.masterKey }
        let session = try Self.session(a, "alice")
        let before = try Self.token(a, session)
        let first = try #require(try Self.keyId(before))
        let environment = childEnvironment(["DATABASE_URL": database, "GATEHOUSE_SECRET_KEY": InProcessServer.secretKey])

        let rotate = try Child.run(["keys", "rotate"], environment: environment)
        #expect(rotate.status == 0, "\(rotate.stderr)")
        let next = try #require(rotate.stdout.split(separator: " ").dropFirst().first.map(String.init), "\(rotate.stdout)")
        #expect(rotate.stdout.hasPrefix("added \(next) (ES256): published now, signs from "), "\(rotate.stdout)")
        for live in [a, b] { #expect(try eventually { try Self.keyIds(live) == [first, next] }, "published at once") }
        let during = [try Self.token(a, session), try Self.token(b, session)]
        #expect(try during.map(Self.keyId) == [first, first], "the next key does not sign yet")
        let list = try Child.run(["keys", "list"], environment: environment)
        #expect(list.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ") }
            == ["KID ALG STATE", "\(first) ES256 signing", "\(next) ES256 next"], "\(list.stdout)")
        for live in [a, b] {
            for verdict in try Self.verify([before] + during, at: live) { #expect(verdict.accepted, "\(verdict)") }
        }

        // The lead has passed (as if ten minutes went by): the next key signs on both instances.
        let connection = try Connection(database)
        defer { connection.close() }
        try connection.execute("""
            UPDATE signing_keys SET created_at = created_at - interval '10 minutes', signs_from = signs_from - interval '10 minutes'
            WHERE kid = \(next)
            """)
        for live in [a, b] { #expect(try eventually { try Self.keyId(Self.token(live, session)) == next }) }
        let after = try Self.token(b, session)
        for live in [a, b] {
            for verdict in try Self.verify([before, after], at: live) { #expect(verdict.accepted, "\(verdict)") }
        }

        // The old key leaked: revoked, its tokens stop verifying everywhere, and are inactive at once.
        let revoke = try Child.run(["keys", "revoke", first], environment: environment)
        #expect(revoke.status == 0 && revoke.stdout.hasPrefix("revoked \(first)"), "\(revoke.stdout) \(revoke.stderr)")
        #expect(try Self.introspect(b, before).json() == ["active": false], "before any instance reloads its keys")
        #expect(try Self.introspect(b, after).json()["active"] == true)
        for live in [a, b] { #expect(try eventually { try Self.keyIds(live) == [next] }) }
        for live in [a, b] {
            let verdicts = try Self.verify([before, after], at: live)
            #expect(verdicts[0].refused, "\(verdicts[0])")
            #expect(verdicts[1].accepted, "\(verdicts[1])")
        }
        let unknown = try Child.run(["keys", "revoke", "no-such-key"], environment: environment)
        #expect(unknown.status == 1 && unknown.stderr.contains("no signing key no-such-key"), "\(unknown.stderr)")
    }

    static let masterKey = "introspection-master-key-0123"

    static func introspect(_ live: LiveServer, _ token: String?, key: String? = masterKey, method: String = "POST") throws -> RawResponse {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        let body = token.map { "token=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        return try live.connect().request(method, "/oauth/introspect", headers: headers, body: Array(body.utf8))
    }

    /// Introspection (RFC 7662) for the master key: a live token and a session token are active
    /// with their claims; an expired, a forged and a logged-out one are not (the last on every
    /// instance at once); without the master key, 401.
    @Test func introspection() throws {
        let a = try Self.server { $0.masterKey = Self.masterKey }
        let database = try #require(a.server.settings.databaseURL)
        let b = try Self.server { $0.databaseURL = database; $0.masterKey = Self.masterKey; $0.publicURL = a.server.publicURL }
        let session = try Self.session(a, "alice")
        let token = try Self.token(a, session)

        let live = try Self.introspect(b, token)
        #expect(live.status == 200 && live.header("Cache-Control") == "no-store")
        let answer = try live.json()
        #expect(answer["active"] == true && answer["token_type"] == "Bearer", "\(live.text)")
        #expect(answer["sub"] == (try JSONWebToken(compact: token).claims["sub"]) && answer["preferred_username"] == "alice")
        #expect(try Self.introspect(b, session).json()["active"] == true)

        // Signed by the server's own key (opened from the database with the secret key): expired
        // an hour ago, and the same claims unexpired as the control.
        let connection = try Connection(database)
        defer { connection.close() }
        let row = try #require(try connection.queryFirst("SELECT kid, sealed_private_key FROM signing_keys"))
        let box = try SecretBox(secretKey: InProcessServer.secretKey, purpose: .signingKeys)
        let key = try JSONWebSigningKey(
            der: try #require(box.open(try row.decode([UInt8].self, at: 1))), algorithm: .es256, keyId: try row.decode(String.self, at: 0))
        var claims = try JSONWebToken(compact: token).claims
        let now = Int(Date().timeIntervalSince1970)
        claims["exp"] = .int(now + 60)
        #expect(try Self.introspect(b, JSONWebToken.sign(claims: claims, type: "at+jwt", with: key)).json()["active"] == true)
        claims["iat"] = .int(now - 3600)
        claims["nbf"] = .int(now - 3600)
        claims["exp"] = .int(now - 3300)
        #expect(try Self.introspect(b, JSONWebToken.sign(claims: claims, type: "at+jwt", with: key)).json() == ["active": false])

        // Forged: signed by a key of our making under the server's kid; a claim changed under the signature.
        let forger = try JSONWebSigningKey(generating: .es256) { _ in key.keyId }
        #expect(try Self.introspect(b, JSONWebToken.sign(claims: JSONWebToken(compact: token).claims, type: "at+jwt", with: forger)).json()
            == ["active": false])
        let parts = token.split(separator: ".").map(String.init)
        var changed = try JSONWebToken(compact: token).claims
        changed["sub"] = "mallory000"
        #expect(try Self.introspect(b, parts[0] + "." + Base64URL.encode(JSON.object(changed).serialized()) + "." + parts[2]).json()
            == ["active": false])

        // Logged out on one instance: inactive on the other at once.
        #expect(try a.graphQL(Documents.logOut, headers: [("X-Parse-Session-Token", session)]).status == 200)
        #expect(try Self.introspect(b, token).json() == ["active": false])
        #expect(try Self.introspect(b, session).json() == ["active": false])

        // Refusals.
        for key in [nil, "wrong-key"] as [String?] {
            let refused = try Self.introspect(b, token, key: key)
            #expect(refused.status == 401 && refused.header("WWW-Authenticate") == #"Bearer realm="gatehouse""#, "\(refused.text)")
            #expect(try refused.json()["error"] == "invalid_client")
            #expect(!refused.text.contains("active"))
        }
        #expect(try Self.introspect(b, nil).status == 400)
        #expect(try Self.introspect(b, token, method: "GET").status == 405)
        let noMasterKey = try Self.server()
        #expect(try Self.introspect(noMasterKey, token, key: "").status == 401)
    }

    /// The private keys never reach the log (at debug level), `/metrics`, the key set or the
    /// discovery document, whatever the server did with them.
    @Test func privateKeysNeverLeak() throws {
        let live = try Self.server { $0.masterKey = Self.masterKey }
        let database = try #require(live.server.settings.databaseURL)
        let session = try Self.session(live, "alice")
        let token = try Self.token(live, session)
        _ = try Self.introspect(live, token)
        let environment = childEnvironment(["DATABASE_URL": database, "GATEHOUSE_SECRET_KEY": InProcessServer.secretKey])
        #expect(try Child.run(["keys", "rotate"], environment: environment).status == 0)
        #expect(try eventually { try Self.keyIds(live).count == 2 })

        let box = try SecretBox(secretKey: InProcessServer.secretKey, purpose: .signingKeys)
        let connection = try Connection(database)
        defer { connection.close() }
        let ders = try connection.query("SELECT sealed_private_key FROM signing_keys").map { try #require(box.open(try $0.decode([UInt8].self, at: 0))) }
        try #require(ders.count == 2)
        let outputs = [
            live.logs.text, try live.get("/metrics").text, try live.get("/.well-known/jwks.json").text,
            try live.get("/.well-known/openid-configuration").text,
        ]
        #expect(live.logs.text.contains("access-token signing key"), "the log tells of the keys (by id): \(live.logs.text)")
        for der in ders {
            let scalar = try #require(Self.privateScalar(der))
            for secret in [der, scalar] {
                for form in [secret.map { String(format: "%02x", $0) }.joined(), Base64URL.encode(secret), Data(secret).base64EncodedString()] {
                    for output in outputs { #expect(!output.contains(form)) }
                }
            }
        }
    }

    /// The private scalar of a SEC 1 `ECPrivateKey` (version 1, then a 32-byte OCTET STRING).
    static func privateScalar(_ der: [UInt8]) -> [UInt8]? {
        let prefix: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20]
        guard der.count > prefix.count + 32,
            let start = (0...(der.count - prefix.count - 32)).first(where: { Array(der[$0..<$0 + prefix.count]) == prefix })
        else { return nil }
        return Array(der[(start + prefix.count)..<(start + prefix.count + 32)])
    }
}
