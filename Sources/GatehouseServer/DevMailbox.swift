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
        guard let peer = IPAddress(request.clientAddress), isLoopback(peer) else { return false }
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
            return IPAddress(name[name.index(after: name.startIndex)..<close]).map(isLoopback) ?? false
        }
        if let colon = name.lastIndex(of: ":") {
            guard Self.isPort(name[colon...]) else { return false }
            name = name[..<colon]
        }
        return name.lowercased() == "localhost" || (IPAddress(name).map { $0.isIPv4 && isLoopback($0) } ?? false)
    }

    /// `:` and one to five digits.
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && (2...6).contains(text.count) && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func isLoopback(_ address: IPAddress) -> Bool {
        address == IPAddress("::1") || IPNetwork("127.0.0.0/8")!.contains(address)
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
            title: "\(composer.appName) dev mailbox", style: Self.style,
            body: Self.body(entries(listed), composer: composer, smtpConfigured: smtpConfigured),
            script: "", config: "{}", cacheControl: "no-store")
    }

    /// The page's body: a heading, a note and one article per message.
    static func body(_ entries: [Entry], composer: MailComposer, smtpConfigured: Bool) -> String {
        var items = ""
        for entry in entries {
            let message = entry.message
            // The text shows the link only where the page does.
            let composed = composer.compose(message, link: entry.link, date: message.createdAt)
            let link = entry.link.map { #"<p class="link"><a href="\#(MailComposer.escape($0))">\#(MailComposer.escape($0))</a></p>"# }
                ?? entry.linkNote.map { #"<p class="link">\#(MailComposer.escape($0))</p>"# } ?? ""
            items += """
                <article>
                <h2>\(MailComposer.escape(composed?.subject ?? "(unknown kind \(message.kind))"))</h2>
                <dl>
                <dt>To</dt><dd>\(MailComposer.escape(message.recipient))</dd>
                <dt>Kind</dt><dd>\(MailComposer.escape(message.kind))</dd>
                <dt>Created</dt><dd>\(created(message.createdAt))</dd>
                <dt>State</dt><dd>\(MailComposer.escape(entry.state))</dd>
                </dl>
                \(link)
                <pre>\(MailComposer.escape(composed?.text ?? ""))</pre>
                </article>

                """
        }
        if entries.isEmpty { items = "<p>No messages yet.</p>\n" }
        let outbox = smtpConfigured
            ? "An SMTP server is configured (GATEHOUSE_SMTP_URL): mail goes out, and links are not shown here."
            : "No SMTP server is configured (GATEHOUSE_SMTP_URL): mail stays in the outbox."
        return """
            <h1>\(MailComposer.escape(composer.appName)) dev mailbox</h1>
            <p class="note">\(outbox) \
            The newest \(limit) messages, newest first.</p>
            \(items)
            """
    }

    static let style = """
        body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1d2330;background:#f6f7f9}\
        h1{font-size:1.4rem}h2{font-size:1.1rem;margin:0 0 .5rem}.note{color:#555}\
        article{background:#fff;border:1px solid #d8dce3;border-radius:8px;padding:1rem;margin:1rem 0}\
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0 0 .5rem}dt{color:#555}dd{margin:0}\
        pre{white-space:pre-wrap;background:#f6f7f9;padding:.75rem;border-radius:6px;margin:0}.link a{word-break:break-all}
        """

    /// ISO-8601 UTC with milliseconds, as the API writes times.
    private static func created(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISO8601.write(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
