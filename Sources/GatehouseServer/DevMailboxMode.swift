/// `GATEHOUSE_DEV_MAILBOX`: whether the server has a dev mailbox (``DevMailbox``) at all. Even
/// when it does, the page answers only requests made on this machine (see ``DevMailbox/admits(_:)``).
public enum DevMailboxMode: String, Sendable, Hashable, CaseIterable {
    /// Never.
    case off
    /// Always, with an external database or an SMTP server too.
    case on
    /// In the embedded default only: no `DATABASE_URL` and no SMTP server.
    case auto
}
