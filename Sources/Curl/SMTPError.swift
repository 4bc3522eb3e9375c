/// Why an SMTP URL was refused or a delivery failed. The description is safe to log: it holds
/// curl's error text and the server's reply code, never credentials or message content.
public struct SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String
    /// The server's last reply code (e.g. 550), when it answered at all.
    public let responseCode: Int?
    /// True when the server refused this message for good (a 5xx reply to the envelope or the
    /// data), or the message's addresses cannot be sent: retrying cannot deliver it. Connection
    /// failures, timeouts, 4xx replies, TLS and log-in failures are temporary: they depend on the
    /// server or its configuration, not on the message.
    public let isPermanent: Bool

    init(_ description: String, responseCode: Int? = nil, isPermanent: Bool = false) {
        self.description = description
        self.responseCode = responseCode
        self.isPermanent = isPermanent
    }
}
