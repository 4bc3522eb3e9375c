import Foundation
import Synchronization

/// A real SMTP server for tests: `scripts/smtp_capture.py` on Debian's `python3-aiosmtpd`, on a
/// free loopback port, storing every message it accepts with Python's own MIME parse of it.
///
/// Modes: plain, STARTTLS offered, or implicit TLS (a self-signed certificate for 127.0.0.1 made
/// at start; clients trust ``caFile``); with credentials it requires AUTH (LOGIN or PLAIN) with
/// exactly those. ``stop()`` kills it (as a crash would) and ``restart()`` brings it back on the
/// same port with the messages so far. Call ``destroy()`` when done (or let it go: `deinit` does).
public final class SMTPTestServer: Sendable {
    public enum Mode: String, Sendable { case plain, starttls, smtps }

    /// How the server answers RCPT and DATA, changeable while it runs.
    public enum Behaviour: String, Sendable {
        case accept
        /// 550 to every RCPT: a permanent failure.
        case refuseRecipients = "refuse"
        /// 451 to every RCPT and DATA: a temporary failure.
        case failTemporarily = "tempfail"
    }

    public let mode: Mode
    public let credentials: (user: String, password: String)?
    /// The directory holding the messages, the certificate and the server's log.
    public let directory: String
    private let state = Mutex<(pid: pid_t?, port: Int)>((nil, 0))

    /// Starts a server; throws when it does not come up (with its log in the error).
    public static func start(mode: Mode = .plain, credentials: (user: String, password: String)? = nil) throws -> SMTPTestServer {
        let server = SMTPTestServer(mode: mode, credentials: credentials)
        do {
            if mode != .plain { try server.makeCertificate() }
            try server.launch(port: 0)
        } catch {
            server.destroy()
            throw error
        }
        return server
    }

    private init(mode: Mode, credentials: (user: String, password: String)?) {
        self.mode = mode
        self.credentials = credentials
        directory = TemporaryDirectory.make(prefix: "gh-smtp")
    }

    deinit { destroy() }

    /// The port it listens on (kept across ``restart()``).
    public var port: Int { state.withLock { $0.port } }

    /// The PEM certificate a client must trust (TLS modes), nil in plain mode.
    public var caFile: String? { mode == .plain ? nil : directory + "/cert.pem" }

    /// `smtp://127.0.0.1:<port>` (`smtps://` in that mode), with the credentials
    /// (percent-encoded) when it has them; in plain mode `?tls=none`, since a client otherwise
    /// requires STARTTLS (plain mode with credentials: a URL a client refuses, for that test).
    public var url: String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved)! }
        let userInfo = credentials.map { "\(encoded($0.user)):\(encoded($0.password))@" } ?? ""
        return "\(mode == .smtps ? "smtps" : "smtp")://\(userInfo)127.0.0.1:\(port)" + (mode == .plain ? "?tls=none" : "")
    }

    /// The messages accepted so far, oldest first.
    public func messages() throws -> [CapturedMail] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            var mail = try JSONDecoder().decode(CapturedMail.self, from: Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)")))
            mail.data = try Array(Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name.dropLast(5)).eml")))
            return mail
        }
    }

    /// Python's parse of `data` (a whole message) as the server would store it, without a server.
    public static func parse(_ data: [UInt8]) throws -> CapturedMail {
        let directory = TemporaryDirectory.make(prefix: "gh-mime")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(data).write(to: URL(fileURLWithPath: directory + "/message.eml"))
        let status = try spawnAndWait("/usr/bin/python3", [script, "--parse", directory + "/message.eml", "--dir", directory], log: directory + "/log")
        guard status == 0 else { throw Failure("the MIME parse failed: \(read(directory + "/log"))") }
        var mail = try JSONDecoder().decode(CapturedMail.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/parse.json")))
        mail.data = data
        return mail
    }

    /// Every AUTH attempt so far, successful or not.
    public func authAttempts() throws -> [AuthAttempt] {
        guard let text = try? String(contentsOfFile: directory + "/auth.jsonl", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(AuthAttempt.self, from: Data($0.utf8)) }
    }

    /// Changes how RCPT and DATA are answered, from the next command on.
    public func setBehaviour(_ behaviour: Behaviour) throws {
        try Data(behaviour.rawValue.utf8).write(to: URL(fileURLWithPath: directory + "/behaviour"), options: .atomic)
    }

    /// Kills the server (SIGKILL, as a crash) and waits for it to be gone: connections are refused.
    public func stop() {
        state.withLock { state in
            guard let pid = state.pid else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            state.pid = nil
        }
    }

    /// Starts the server again on the same port, keeping the messages so far.
    public func restart() throws {
        stop()
        try launch(port: port)
    }

    /// Stops the server and removes its directory.
    public func destroy() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeCertificate() throws {
        let status = try Self.spawnAndWait("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ], log: logFile)
        guard status == 0 else { throw Failure("openssl could not make a certificate: \(log)") }
    }

    private func launch(port: Int) throws {
        unlink(directory + "/port")
        var arguments = [Self.script, "--dir", directory, "--port", String(port), "--mode", mode.rawValue]
        if mode != .plain { arguments += ["--cert", directory + "/cert.pem", "--key", directory + "/key.pem"] }
        if let credentials { arguments += ["--user", credentials.user, "--password", credentials.password] }
        let pid = try Self.spawn("/usr/bin/python3", arguments, log: logFile)
        state.withLock { $0.pid = pid }
        var listening: Int?
        var exited = false
        eventually(timeout: .seconds(30)) {
            listening = (try? String(contentsOfFile: directory + "/port", encoding: .utf8)).flatMap { Int($0) }
            exited = listening == nil && waitpid(pid, nil, WNOHANG) == pid  // reaped: nothing left to stop
            return listening != nil || exited
        }
        guard let listening else {
            if exited { state.withLock { $0.pid = nil } }
            stop()
            throw Failure("the SMTP test server did not start (Debian's python3-aiosmtpd: scripts/install-deps.sh --test): \(log)")
        }
        state.withLock { $0.port = listening }
    }

    private static let script = packageRoot.path + "/scripts/smtp_capture.py"
    private var logFile: String { directory + "/server.log" }
    private var log: String { Self.read(logFile) }
    private static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Starts `executable` with its output appended to `log`, in a minimal environment.
    private static func spawn(_ executable: String, _ arguments: [String], log: String) throws -> pid_t {
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("cannot open \(log): errno \(errno)") }
        defer { close(fd) }
        // Debian's own environment: a pyenv's PYTHONPATH or PYTHONHOME must not reach /usr/bin/python3.
        return try spawnChild([executable] + arguments, environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], output: fd, errors: fd)
    }

    private static func spawnAndWait(_ executable: String, _ arguments: [String], log: String) throws -> Int32 {
        let pid = try spawn(executable, arguments, log: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// One message as the SMTP test server received it, with Python's `email` package's parse.
public struct CapturedMail: Sendable, Decodable {
    /// The envelope: `MAIL FROM` and every accepted `RCPT TO`.
    public var mailFrom: String
    public var rcptTo: [String]
    /// Whether the session was encrypted (STARTTLS or implicit TLS) when the message came.
    public var tls: Bool
    /// The user that authenticated, if any.
    public var authenticatedAs: String?
    /// The Subject, decoded (RFC 2047).
    public var subject: String
    /// Every header, in order, values decoded.
    public var headers: [[String]]
    /// The top-level content type, e.g. `multipart/alternative`.
    public var contentType: String
    /// What Python's parser found wrong with the message or any part (empty for a sound message).
    public var defects: [String]
    /// The first text/plain and text/html parts, decoded.
    public var text: String?
    public var html: String?
    /// The message as received.
    public var data: [UInt8] = []

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0[0].lowercased() == name.lowercased() }?[1]
    }

    enum CodingKeys: String, CodingKey {
        case mailFrom = "mail_from", rcptTo = "rcpt_to", tls, authenticatedAs = "authenticated_as", subject, headers,
            contentType = "content_type", defects, text, html
    }
}

/// One AUTH attempt the SMTP test server saw (the password is never recorded).
public struct AuthAttempt: Sendable, Decodable, Equatable {
    public var mechanism: String
    public var user: String?
    public var tls: Bool
    public var ok: Bool
}
