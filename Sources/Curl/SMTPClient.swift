internal import CCurl

/// Sends whole RFC 5322 messages through one SMTP server with libcurl: a new connection per
/// message, safe to use from any thread.
///
/// `smtp://` requires STARTTLS: the transfer fails before MAIL (and before AUTH) when the server
/// does not offer it, so neither credentials nor messages with their links cross the network in
/// clear, and an on-path attacker cannot strip the upgrade. `smtps://` is TLS from the first byte.
/// `smtp://host?tls=none` speaks plain SMTP, only to a loopback host (a relay on the same machine)
/// and only without credentials. Certificates are always verified, against the system's CAs and
/// `caFile`.
public struct SMTPClient: Sendable, CustomStringConvertible {
    /// How the connection is protected.
    public enum Security: Sendable, Equatable {
        /// `smtp://`: STARTTLS, required.
        case startTLS
        /// `smtps://`: TLS from the first byte.
        case implicitTLS
        /// `smtp://…?tls=none`: plain text, to a loopback host only.
        case none
    }

    /// The URL curl connects to (the `?tls=none` switch removed).
    private let url: String
    private let secrets: [String]
    /// How the connection is protected.
    public let security: Security
    private let caFile: String?
    private let timeout: Int
    /// The server without credentials, for logs: `smtps://mail.example.com:465`.
    public let description: String

    /// `url`: `smtp://[user:password@]host[:port]`, `smtps://…`, or `smtp://host[:port]?tls=none`
    /// to a loopback host (user and password percent-encoded; a path is the name curl sends in
    /// EHLO). `caFile`: a PEM bundle of extra trusted CAs (a private CA). `timeout`: seconds for a
    /// whole delivery. Throws an error naming what is wrong with the URL, never quoting it (it may
    /// hold a password).
    public init(url: String, caFile: String? = nil, timeout: Int = 30) throws(SMTPError) {
        let parts = try URLParts(parsing: url)
        guard parts.scheme == "smtp" || parts.scheme == "smtps" else {
            throw SMTPError("the SMTP URL's scheme must be smtp or smtps, not \"\(parts.scheme)\"")
        }
        guard !parts.host.isEmpty else { throw SMTPError("the SMTP URL has no host") }
        guard !parts.hasFragment else { throw SMTPError("the SMTP URL must not have a fragment") }
        let secrets = [parts.password, parts.encodedPassword].compactMap { $0 }.filter { !$0.isEmpty }
        switch parts.query {
        case nil:
            security = parts.scheme == "smtps" ? .implicitTLS : .startTLS
        case "tls=none":
            guard parts.scheme == "smtp" else { throw SMTPError("?tls=none is for smtp:// URLs; smtps:// is always TLS") }
            guard isLoopbackHost(parts.host) else {
                throw SMTPError(
                    "?tls=none (plain SMTP) is allowed only to a loopback host (127.0.0.0/8, ::1, localhost), not \(parts.host); "
                        + "other servers need STARTTLS or smtps://")
            }
            guard parts.user == nil, secrets.isEmpty else { throw SMTPError("?tls=none cannot be used with a user or password: credentials need TLS") }
            security = .none
        default:
            throw SMTPError("the SMTP URL's only query may be ?tls=none (plain SMTP to a loopback host)")
        }
        guard timeout > 0 else { throw SMTPError("the SMTP timeout must be at least 1 second") }
        self.url = parts.withoutQuery
        self.secrets = secrets
        self.caFile = caFile
        self.timeout = timeout
        description = "\(parts.scheme)://\(parts.host)" + (parts.port.map { ":\($0)" } ?? "") + (security == .none ? "?tls=none" : "")
    }

    /// Sends `message` (a whole RFC 5322 message, CRLF line ends) from `from` to each address in
    /// `to` (plain addresses: `ann@example.com`). Throws when any recipient is refused.
    public func send(from: String, to: [String], message: [UInt8]) throws(SMTPError) {
        guard !to.isEmpty else { throw SMTPError("a message needs at least one recipient", isPermanent: true) }
        for address in [from] + to where !Self.isSendable(address) {
            throw SMTPError("an envelope address is empty or holds a control character or angle bracket", isPermanent: true)
        }
        let easy = try EasyHandle()
        try easy.set(CURLOPT_URL, url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        try easy.set(CURLOPT_USE_SSL, Int((security == .none ? CURLUSESSL_NONE : CURLUSESSL_ALL).rawValue))
        if let caFile { try easy.set(CURLOPT_CAINFO, caFile) }
        try easy.set(CURLOPT_TIMEOUT, timeout)
        try easy.set(CURLOPT_MAIL_FROM, from)
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipients) }
        for address in to {
            guard let appended = address.withCString({ curl_slist_append(recipients, $0) }) else {
                throw SMTPError("out of memory for the recipient list")
            }
            recipients = appended
        }
        try easy.set(CURLOPT_MAIL_RCPT, pointer: UnsafeMutableRawPointer(recipients))
        try easy.set(CURLOPT_UPLOAD, 1)
        let reader = MessageReader(message)
        try easy.set(CURLOPT_READDATA, pointer: Unmanaged.passUnretained(reader).toOpaque())
        try easy.setReadFunction(readMessage)
        let failure = withExtendedLifetime(reader) {
            easy.perform { code, reply in
                // A 5xx reply to MAIL, RCPT or DATA (curl reports those as send errors or, after
                // the data, a "weird" reply): the server will never take this message. A 5xx to
                // AUTH is CURLE_LOGIN_DENIED: the configuration's fault, so not permanent.
                guard let reply, (500..<600).contains(reply) else { return false }
                return code == CURLE_SEND_ERROR || code == CURLE_WEIRD_SERVER_REPLY
            }
        }
        if let failure { throw redacted(failure) }
    }

    /// curl does not put credentials in its error texts; this makes sure of it.
    private func redacted(_ error: SMTPError) -> SMTPError {
        var text = error.description
        for secret in secrets { text = text.replacing(secret, with: "***") }
        return SMTPError(text, responseCode: error.responseCode, isPermanent: error.isPermanent)
    }

    /// An address curl can put in `MAIL FROM:<…>` / `RCPT TO:<…>` without changing the command.
    private static func isSendable(_ address: String) -> Bool {
        !address.isEmpty && !address.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "<" || $0 == ">" }
    }
}

/// The message bytes and how far libcurl has read them.
private final class MessageReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// CURLOPT_READFUNCTION: copies the next bytes of the `MessageReader` passed as CURLOPT_READDATA.
private let readMessage: curl_read_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let reader = Unmanaged<MessageReader>.fromOpaque(context).takeUnretainedValue()
    let length = min(size * count, reader.bytes.count - reader.offset)
    guard length > 0 else { return 0 }
    reader.bytes.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + reader.offset, byteCount: length)
    }
    reader.offset += length
    return length
}

/// An SMTP URL's parts, as curl's own URL parser reads them (so what passes here is what curl
/// will connect to).
private struct URLParts {
    var scheme = "", host = ""
    var port: String?, user: String?, password: String?, encodedPassword: String?, query: String?
    var hasFragment = false
    /// The whole URL without its query.
    var withoutQuery = ""

    init(parsing url: String) throws(SMTPError) {
        guard let handle = curl_url() else { throw SMTPError("out of memory for the SMTP URL") }
        defer { curl_url_cleanup(handle) }
        let set = curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard set == CURLUE_OK else {
            throw SMTPError("the SMTP URL is not of the form smtp://[user:password@]host[:port] (\(String(cString: curl_url_strerror(set))))")
        }
        func part(_ which: CURLUPart, decoded: Bool = false) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, decoded ? UInt32(CURLU_URLDECODE) : 0) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        scheme = part(CURLUPART_SCHEME) ?? ""
        host = part(CURLUPART_HOST) ?? ""
        port = part(CURLUPART_PORT)
        user = part(CURLUPART_USER, decoded: true).flatMap { $0.isEmpty ? nil : $0 }
        password = part(CURLUPART_PASSWORD, decoded: true)
        encodedPassword = part(CURLUPART_PASSWORD)
        query = part(CURLUPART_QUERY)
        hasFragment = part(CURLUPART_FRAGMENT) != nil
        guard curl_url_set(handle, CURLUPART_QUERY, nil, 0) == CURLUE_OK, let whole = part(CURLUPART_URL) else {
            throw SMTPError("out of memory for the SMTP URL")
        }
        withoutQuery = whole
    }
}
