import Foundation
import JSON
import TestSupport

/// Access tokens checked as a service would check them, by two JWT libraries that share no code
/// with Gatehouse: PyJWT and jwcrypto (Debian's python3-jwt and python3-jwcrypto, run by
/// `scripts/verify_access_tokens.py` under Debian's /usr/bin/python3; `scripts/install-deps.sh
/// --test` installs them). Each checks the signature against the key set, `exp`, `nbf`, `iss`
/// and `aud`.
public enum IndependentVerifiers {
    /// Where the libraries get the key set: the served URL (fetched by each library itself), or a document.
    public enum KeySet: Sendable {
        case url(String)
        case document([UInt8])
    }

    /// One library's answer about one token.
    public struct Verdict: Sendable, CustomStringConvertible {
        /// Whether the library accepted the token.
        public let accepted: Bool
        /// The JOSE header and the claims, when accepted (as the library decoded them).
        public let header: JSONObject
        public let claims: JSONObject
        /// Why it refused (the exception's type and message), when it did.
        public let error: String

        init(_ json: JSON?) {
            accepted = json?["ok"] == .bool(true)
            header = json?["header"]?.objectValue ?? [:]
            claims = json?["claims"]?.objectValue ?? [:]
            error = json?["error"]?.stringValue ?? ""
        }

        public var description: String { accepted ? "accepted \(JSON.object(claims))" : "refused (\(error))" }
    }

    /// Both libraries' answers about one token.
    public struct Verdicts: Sendable, CustomStringConvertible {
        public let pyjwt: Verdict
        public let jwcrypto: Verdict

        /// Both accepted it.
        public var accepted: Bool { pyjwt.accepted && jwcrypto.accepted }
        /// Both refused it.
        public var refused: Bool { !pyjwt.accepted && !jwcrypto.accepted }

        public var description: String { "PyJWT \(pyjwt); jwcrypto \(jwcrypto)" }
    }

    /// Each of `tokens` verified by both libraries against `keySet`, for `issuer` and `audience`.
    public static func verify(_ tokens: [String], keySet: KeySet, issuer: String, audience: String) throws -> [Verdicts] {
        let directory = TemporaryDirectory.make(prefix: "jwtv")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/tokens", outputPath = directory + "/output"
        try (tokens.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        var arguments = [packageRoot.path + "/scripts/verify_access_tokens.py", "--issuer", issuer, "--audience", audience]
        switch keySet {
        case .url(let url):
            arguments += ["--jwks-url", url]
        case .document(let bytes):
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/jwks.json"))
            arguments += ["--jwks-file", directory + "/jwks.json"]
        }
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw Failure("cannot open \(outputPath): errno \(errno)") }
        let pid: pid_t
        do {
            defer { close(output) }
            // Debian's own environment: a pyenv's PYTHONPATH or PYTHONHOME must not reach /usr/bin/python3.
            pid = try spawnChild(
                ["/bin/sh", "-c", "exec \"$@\" < \"$0\"", input, "/usr/bin/python3"] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], output: output, errors: output)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        guard status == 0, lines.count == tokens.count else {
            throw Failure(
                "verify_access_tokens.py failed (Debian's python3-jwt and python3-jwcrypto: scripts/install-deps.sh --test): \(text)")
        }
        return try lines.map { line in
            let json = try JSONParser().parse(Array(line.utf8))
            return Verdicts(pyjwt: Verdict(json["pyjwt"]), jwcrypto: Verdict(json["jwcrypto"]))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
