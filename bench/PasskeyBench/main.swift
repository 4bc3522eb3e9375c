// Prepares logInWithPasskey requests for wrk (bench/passkey.sh): users with a passkey each (a
// software authenticator's P-256 key, counter 0 as platform passkeys have, so assertions may
// arrive in any order), then one challenge per request from passkeyLoginOptions, signed ahead.
// Each body works once (a challenge is single use, valid 5 minutes), so each file must hold at
// least the requests of the run that sends it, and the runs must end within 5 minutes.
//   PasskeyBench <port> <users> <bodies per file> <file>...
import Foundation
import JSON
import TestSupport
import WebAuthnTestSupport

struct Failure: Error, CustomStringConvertible { let description: String }

/// One GraphQL request over a kept-alive connection; the `data` of the answer.
func graphql(_ connection: HTTPConnection, _ query: String, _ variables: JSONObject = [:], token: String? = nil) throws -> JSON {
    var headers = [("Content-Type", "application/json")]
    if let token { headers.append(("X-Parse-Session-Token", token)) }
    let body = JSON.object(["query": .string(query), "variables": .object(variables)]).serialized()
    let response = try connection.request("POST", "/graphql", headers: headers, body: body)
    let answer = try JSON.parse(bytes: response.body)
    guard response.status == 200, answer["errors"] == nil, let data = answer["data"] else {
        throw Failure(description: "\(response.status) \(response.text.prefix(300))")
    }
    return data
}

let arguments = CommandLine.arguments
guard arguments.count >= 5, let port = Int(arguments[1]), let userCount = Int(arguments[2]), let perFile = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: PasskeyBench <port> <users> <bodies per file> <file>...\n".utf8))
    exit(2)
}
let authenticator = SoftwareAuthenticator(origin: ProcessInfo.processInfo.environment["BENCH_ORIGIN"] ?? "http://localhost:\(port)")
let connection = try HTTPConnection(port: port)

var users: [(name: String, credential: SoftwareCredential)] = []
for index in 0..<userCount {
    let name = "pk-\(index)-\(UInt32.random(in: 0...UInt32.max))"
    let signedUp = try graphql(connection, """
        mutation S($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) { viewer { sessionToken } } }
        """, ["f": ["username": .string(name), "password": "bench-password-1"]])
    guard let token = signedUp["signUp"]?["viewer"]?["sessionToken"]?.stringValue else { throw Failure(description: "no token") }
    let options = try graphql(connection, "mutation { passkeyRegistrationOptions(input: {}) { options } }", token: token)
    let (credential, response) = try authenticator.register(
        options: options["passkeyRegistrationOptions"]?["options"] ?? .null, counterStep: 0)
    _ = try graphql(connection, """
        mutation R($c: Object!) { registerPasskey(input: {credential: $c, name: "bench"}) { passkey { id } } }
        """, ["c": response], token: token)
    users.append((name, credential))
}
var index = 0
for file in arguments[4...] {
    var out = ""
    for _ in 0..<perFile {
        var user = users[index % users.count]
        index += 1
        let options = try graphql(connection, """
            mutation O($u: String) { passkeyLoginOptions(input: {username: $u}) { options } }
            """, ["u": .string(user.name)])
        let assertion = try authenticator.assert(options: options["passkeyLoginOptions"]?["options"] ?? .null, credential: &user.credential)
        out += JSON.object([
            "query": "mutation P($c: Object!) { logInWithPasskey(input: {credential: $c}) { viewer { sessionToken } } }",
            "variables": ["c": assertion],
        ]).serializedString() + "\n"
    }
    try out.write(toFile: file, atomically: true, encoding: .utf8)
}
