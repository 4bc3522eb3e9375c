import Auth
import Foundation
import HTTPServer
import IPNetworks
import JSON
import Mail
import Sodium

/// `GET /_dev/mailbox`: the outbox's newest messages as a page, for local development without an
/// SMTP server (the contract's "Mail"). The server has one as `GATEHOUSE_DEV_MAILBOX` says
/// (``isServed(mode:embeddedDatabase:smtpConfigured:)``), and it answers only requests made on
/// this machine (``admits(_:)``); anywhere else the path is unknown (404).
///
/// Each message shows its recipient, subject, kind, time, state and plain-text body, and for the
/// link kinds either the link or why it is not shown (``Entry``). A link is opened from its seal
/// only for a message kept here (no SMTP server) whose link still works. Everything interpolated
/// is HTML-escaped; the page needs no script (its CSP allows only an empty one).
struct DevMailbox: Sendable {
    let store: OutboxStore
    let composer: MailComposer
    /// Opens the links sealed in the outbox (`GATEHOUSE_SECRET_KEY`, purpose `mailLinks`).
    let linkBox: SecretBox
    /// Whether an SMTP server delivers the outbox: then its messages are not kept here, and no
    /// link is opened for the page.
    let smtpConfigured: Bool
    /// Messages shown, newest first.
    static let limit = 100

    /// Whether a server has the mailbox: `on`, or `auto` in the embedded default (no
    /// `DATABASE_URL`, no SMTP server).
    static func isServed(mode: DevMailboxMode, embeddedDatabase: Bool, smtpConfigured: Bool) -> Bool {
        switch mode {
        case .off: false
        case .on: true
        case .auto: embeddedDatabase && !smtpConfigured
        }
    }

    /// Whether `request` may see the mailbox: it comes from a loopback address with no header a
    /// proxy adds (a proxy on this machine would otherwise hand the page to anyone), and names a
    /// loopback host (a page elsewhere cannot reach it through DNS rebinding).
    static func admits(_ request: HTTPRequest) -> Bool {
        guard let peer = IPAddress(request.clientAddress), peer.isLoopback else { return false }
        guard !request.headers.contains(where: { isForwarding($0.name) }) else { return false }
        let hosts = request.headers.values(for: "Host")
        return hosts.count == 1 && isLoopbackHost(hosts[0])
    }

    /// `X-Forwarded-For`, `Forwarded`, `X-Real-IP` and the other `X-Forwarded-` headers.
    static func isForwarding(_ name: String) -> Bool {
        let name = name.lowercased()
        return name == "forwarded" || name == "x-real-ip" || name.hasPrefix("x-forwarded-")
    }

    /// `localhost`, an address in 127.0.0.0/8 or `[::1]`, with or without a port.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return false }
            return IPAddress(name[name.index(after: name.startIndex)..<close])?.isLoopback ?? false
        }
        if let colon = name.lastIndex(of: ":") {
            guard Self.isPort(name[colon...]) else { return false }
            name = name[..<colon]
        }
        return name.lowercased() == "localhost" || (IPAddress(name).map { $0.isIPv4 && $0.isLoopback } ?? false)
    }

    /// `:` and one to five digits.
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && (2...6).contains(text.count) && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// What the page shows of one message.
    struct Entry: Sendable, Equatable {
        var message: OutboxStore.StoredMessage
        /// Its state in words: kept here, waiting to be sent, sent, or failed with the reason.
        var state: String
        /// The link, opened: for a message kept here whose link still works.
        var link: String?
        /// Instead of the link: why it is not shown (used, expired, ...); nil for kinds without one.
        var linkNote: String?
    }

    /// `listed` as the page shows it: each message's state, and its link or why it is not shown.
    func entries(_ listed: [OutboxStore.ListedMessage]) -> [Entry] {
        listed.map { item in
            let message = item.message
            let state = switch message.state {
            case "pending" where !smtpConfigured: "kept here (no SMTP server)"
            case "pending": item.lastError.map { "waiting to be sent; the last attempt failed: \($0)" } ?? "waiting to be sent"
            case "failed": "failed, given up: \(item.lastError ?? "no reason recorded")"
            default: message.state
            }
            var entry = Entry(message: message, state: state)
            switch item.linkState {
            case nil: break
            case .open?:
                if smtpConfigured || message.state != "pending" {
                    entry.linkNote = "link not shown: an SMTP server delivers this message"
                } else if let sealed = message.sealedLink, let opened = linkBox.open(sealed) {
                    entry.link = String(decoding: opened, as: UTF8.self)
                } else {
                    entry.linkNote = "link not shown: it was sealed under another GATEHOUSE_SECRET_KEY"
                }
            case .used?: entry.linkNote = "link used"
            case .expired?: entry.linkNote = "link expired"
            case .void?: entry.linkNote = "link no longer valid: a newer one was sent, or the address changed"
            case .notKept?: entry.linkNote = "link not kept: the message was sent or given up"
            }
            return entry
        }
    }

    /// The page, read now (blocking: it queries the database).
    func page() -> HTTPResponse {
        let listed: [OutboxStore.ListedMessage]
        do { listed = try store.newest(limit: Self.limit) } catch {
            return HTTPResponse(
                status: 503, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array("database unavailable\n".utf8))
        }
        // No script: the page's empty one is all its CSP allows.
        return Pages.page(
            title: "\(composer.appName) dev mailbox", assets: Self.assets,
            body: Self.body(entries(listed), composer: composer, smtpConfigured: smtpConfigured),
            config: "{}", cacheControl: "no-store")
    }

    /// The page's body (`mailbox.html`): a heading, a note and one article per message.
    static func body(_ entries: [Entry], composer: MailComposer, smtpConfigured: Bool) -> String {
        let items = entries.map { entry in
            let message = entry.message
            // The text shows the link only where the page does.
            let composed = composer.compose(message, link: entry.link, date: message.createdAt)
            let link = entry.link.map { Self.linkTemplate.render(["link": $0]) }
                ?? entry.linkNote.map { Self.linkNoteTemplate.render(["note": $0]) } ?? ""
            return Self.messageTemplate.render([
                "subject": composed?.subject ?? "(unknown kind \(message.kind))", "recipient": message.recipient,
                "kind": message.kind, "created": created(message.createdAt), "state": entry.state,
                "link": link, "text": composed?.text ?? "",
            ])
        }
        let delivery = smtpConfigured
            ? "An SMTP server is configured (GATEHOUSE_SMTP_URL): mail goes out, and links are not shown here."
            : "No SMTP server is configured (GATEHOUSE_SMTP_URL): mail stays in the outbox."
        return Self.template.render([
            "appName": composer.appName, "delivery": delivery, "limit": String(limit),
            "messages": entries.isEmpty ? Self.emptyTemplate.render() : items.joined(separator: "\n"),
        ])
    }

    static let template = Pages.template("mailbox.html", PageFiles.mailboxHtml)
    static let messageTemplate = Pages.template("mailbox-message.html", PageFiles.mailboxMessageHtml)
    static let linkTemplate = Pages.template("mailbox-link.html", PageFiles.mailboxLinkHtml)
    static let linkNoteTemplate = Pages.template("mailbox-link-note.html", PageFiles.mailboxLinkNoteHtml)
    static let emptyTemplate = Pages.template("mailbox-empty.html", PageFiles.mailboxEmptyHtml)
    static let assets = PageAssets(style: Pages.withoutFinalLineBreak(PageFiles.mailboxCss), script: "")

    /// ISO-8601 UTC with milliseconds, as the API writes times.
    private static func created(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISO8601.write(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
