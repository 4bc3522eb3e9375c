import Foundation
import JSON
import Synchronization
import TestSupport

/// A local OpenID Connect provider for tests: `scripts/oidc_provider.py` on Debian's
/// `python3-cryptography`, on a free loopback port. It holds an RSA and an EC P-256 key, serves
/// their key set at ``jwksURI`` (counting fetches), and mints tokens with any claim changed,
/// any algorithm (`RS256`, `ES256`, and the forgeries `none` and `HS256` with the public key as
/// secret), any `kid`, or signed by a key outside the set. Call ``stop()`` when done (or let it
/// go: `deinit` does).
public final class OIDCTestProvider: Sendable {
    /// The audience of minted tokens unless a claim overrides it.
    public static let clientID = "test-client"
    /// The subject of minted tokens unless a claim overrides it.
    public static let subject = "user-1"

    public let port: Int
    private let directory: String
    private let pid: Mutex<pid_t?>

    /// Starts a provider; throws when it does not come up (with its log in the error).
    public static func start() throws -> OIDCTestProvider {
        let directory = TemporaryDirectory.make(prefix: "gh-oidc")
        let log = directory + "/server.log"
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("cannot open \(log): errno \(errno)") }
        defer { close(fd) }
        // Debian's own environment: a pyenv's PYTHONPATH or PYTHONHOME must not reach /usr/bin/python3.
        let pid = try spawnChild(
            ["/usr/bin/python3", packageRoot.path + "/scripts/oidc_provider.py", "--dir", directory],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], output: fd, errors: fd)
        var port: Int?
        var exited = false
        _ = eventually(timeout: .seconds(30)) {
            port = (try? String(contentsOfFile: directory + "/port", encoding: .utf8)).flatMap { Int($0) }
            exited = port == nil && waitpid(pid, nil, WNOHANG) == pid
            return port != nil || exited
        }
        guard let port else {
            if !exited { kill(pid, SIGKILL); waitpid(pid, nil, 0) }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: directory)
            throw Failure("the OIDC test provider did not start (Debian's python3-cryptography: scripts/install-deps.sh --test): \(text)")
        }
        return OIDCTestProvider(port: port, directory: directory, pid: pid)
    }

    private init(port: Int, directory: String, pid: pid_t) {
        self.port = port
        self.directory = directory
        self.pid = Mutex(pid)
    }

    deinit { stop() }

    /// The `iss` of minted tokens: `http://127.0.0.1:<port>`.
    public var issuer: String { "http://127.0.0.1:\(port)" }
    /// The key set's URL.
    public var jwksURI: String { issuer + "/jwks" }
    /// The current keys' ids.
    public var keyIds: (rsa: String, ec: String) {
        get throws {
            let state = try request("GET", "/state")
            return (state["rsa_kid"]?.stringValue ?? "", state["ec_kid"]?.stringValue ?? "")
        }
    }
    /// Key-set fetches served so far.
    public var fetchCount: Int {
        get throws { try request("GET", "/state")["fetches"]?.intValue ?? -1 }
    }

    /// A compact JWT. `claims` override the defaults (iss: ``issuer``, aud: ``clientID``, sub:
    /// ``subject``, iat: now, exp: in 10 minutes); a claim given as `.null` is left out. `alg`:
    /// RS256, ES256, none or HS256. `kid`: the header's key id (default: the current key of the
    /// algorithm); `omitKid` leaves it out. `foreign`: signed by a fresh key not in the set.
    public func mint(
        claims: JSONObject = [:], alg: String = "RS256", kid: String? = nil, omitKid: Bool = false, foreign: Bool = false
    ) throws -> String {
        var body: JSONObject = ["claims": .object(claims), "alg": .string(alg), "foreign": .bool(foreign)]
        if omitKid { body["kid"] = .null } else if let kid { body["kid"] = .string(kid) }
        return try send("POST", "/mint", body).text
    }

    /// New keys with new kids; the old ones leave the key set.
    public func rotate() throws { _ = try send("POST", "/rotate", [:]) }

    /// Makes the key set URL close connections without an answer (or answer again).
    public func setUnreachable(_ unreachable: Bool) throws { _ = try send("POST", "/control", ["unreachable": .bool(unreachable)]) }

    /// The key set's Cache-Control header (nil: none).
    public func setCacheControl(_ value: String?) throws {
        _ = try send("POST", "/control", ["cache_control": value.map { .string($0) } ?? .null])
    }

    /// Kills the provider and removes its directory.
    public func stop() {
        pid.withLock { pid in
            guard let running = pid else { return }
            kill(running, SIGKILL)
            var status: Int32 = 0
            while waitpid(running, &status, 0) < 0 && errno == EINTR {}
            pid = nil
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func request(_ method: String, _ path: String) throws -> JSONObject {
        let response = try send(method, path, nil)
        guard let object = try JSONParser().parse(response.body).objectValue else { throw Failure("not an object: \(response.text)") }
        return object
    }

    private func send(_ method: String, _ path: String, _ body: JSONObject?) throws -> RawResponse {
        let response = try HTTPConnection(port: port).request(method, path, body: body.map { JSON.object($0).serialized() })
        guard response.status == 200 else { throw Failure("\(method) \(path): HTTP \(response.status) \(response.text)") }
        return response
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
