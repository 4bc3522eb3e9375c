import Foundation
import JSON
import TestSupport

/// A webhook receiver for tests: `scripts/webhook_receiver.py` under Debian's python3, which
/// verifies every request with the Standard Webhooks reference library (`standardwebhooks` from
/// PyPI, installed by `scripts/install-deps.sh --test`): an implementation that shares no code
/// with Gatehouse's signer. It records each request and answers as ``answer(_:with:)`` scripts
/// (by default 200 `{"allow": true}`). Stopped on deinit.
public final class WebhookReceiver: Sendable {

    /// One request as the receiver saw it.
    public struct Request: Sendable {
        public var path: String
        /// `webhook-id`.
        public var id: String
        public var timestamp: String
        /// Whether the library verified the signature (and the timestamp's tolerance).
        public var verified: Bool
        /// Why not, when it did not.
        public var error: String
        /// The body as the library parsed it once verified (nil otherwise).
        public var body: JSON?
        /// The body's `type` and `data`.
        public var type: String { body?["type"]?.stringValue ?? "" }
        public var data: JSONObject { body?["data"]?.objectValue ?? [:] }
        public var contentType: String
        /// The raw line recorded, for messages and secret checks.
        public var line: String
    }

    public let secret: String
    public let directory: String
    public let port: Int
    private let pid: pid_t

    /// Starts a receiver verifying with `secret` (`whsec_…`).
    public init(secret: String) throws {
        self.secret = secret
        let directory = TemporaryDirectory.make(prefix: "gh-webhooks")
        self.directory = directory
        let log = open(directory + "/receiver.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(log) }
        let pid = try spawnChild(
            ["/usr/bin/python3", packageRoot.path + "/scripts/webhook_receiver.py", "--dir", directory, "--secret", secret],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], output: log, errors: log)
        var found: Int?
        eventually(timeout: .seconds(30)) {
            found = (try? String(contentsOfFile: directory + "/port", encoding: .utf8)).flatMap { Int($0) }
            return found != nil || waitpid(pid, nil, WNOHANG) == pid
        }
        guard let found else {
            kill(pid, SIGKILL)
            while waitpid(pid, nil, 0) < 0 && errno == EINTR {}
            let text = (try? String(contentsOfFile: directory + "/receiver.log", encoding: .utf8)) ?? ""
            throw Failure(
                "the webhook receiver did not start (standardwebhooks for Debian's python3: scripts/install-deps.sh --test): \(text)")
        }
        port = found
        self.pid = pid
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/hooks") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Scripts the next answers to requests on `path`, one per request, each
    /// `{"status": 200, "body": "…"}` and optionally `"delay": seconds` before answering, or
    /// `"hold": "name"`: answered once ``release(_:)`` of that name.
    public func answer(_ path: String, with answers: [JSON]) throws {
        let name = directory + "/answers-" + path.trimmingCharacters(in: CharacterSet(charactersIn: "/")).replacingOccurrences(of: "/", with: "_") + ".json"
        try Data(JSON.array(answers).serialized()).write(to: URL(fileURLWithPath: name + ".tmp"))
        rename(name + ".tmp", name)
    }

    /// Lets the requests held by `"hold": name` answer.
    public func release(_ name: String) throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/release-" + name))
    }

    /// Every request so far, oldest first.
    public func requests() -> [Request] {
        guard let text = try? String(contentsOfFile: directory + "/requests.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSON.parse(String(line)) else { return nil }
            return Request(
                path: json["path"]?.stringValue ?? "", id: json["id"]?.stringValue ?? "",
                timestamp: json["timestamp"]?.stringValue ?? "", verified: json["verified"] == .bool(true),
                error: json["error"]?.stringValue ?? "", body: json["body"].flatMap { $0 == .null ? nil : $0 },
                contentType: json["contentType"]?.stringValue ?? "", line: String(line))
        }
    }

    /// The requests on `path`.
    public func requests(on path: String) -> [Request] { requests().filter { $0.path == path } }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
