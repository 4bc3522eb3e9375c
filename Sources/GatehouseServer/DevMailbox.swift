import Auth
import Foundation
import HTTPServer
import IPNetworks
import JSON
import Mail

/// `GET /_dev/mailbox`: the outbox's newest messages as a page, for local development without an
/// SMTP server (the contract's "Mail"). Served only when the listener's address is loopback and
/// no SMTP server is configured; anywhere else the path is unknown (404).
///
/// Each message shows its recipient, subject, kind, time, state, plain-text body and link (a
/// link is kept only while the message is pending, which without SMTP is always). Everything
/// interpolated is HTML-escaped; the page needs no script (its CSP allows only an empty one).
struct DevMailbox: Sendable {
    let store: OutboxStore
    let composer: MailComposer
    /// Messages shown, newest first.
    static let limit = 100

    /// Whether a server listening on `host` with or without SMTP serves the mailbox.
    static func isServed(host: String, smtpConfigured: Bool) -> Bool {
        guard !smtpConfigured, let address = IPAddress(host) else { return false }
        return address == IPAddress("::1") || IPNetwork("127.0.0.0/8")!.contains(address)
    }

    /// The page, read now (blocking: it queries the database).
    func page() -> HTTPResponse {
        let messages: [OutboxStore.StoredMessage]
        do { messages = try store.newest(limit: Self.limit) } catch {
            return HTTPResponse(
                status: 503, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array("database unavailable\n".utf8))
        }
        // No script: the page's empty one is all its CSP allows.
        return Pages.page(
            title: "\(composer.appName) dev mailbox", assets: Self.assets, body: Self.body(messages, composer: composer),
            config: "{}", cacheControl: "no-store")
    }

    /// The page's body (`mailbox.html`): a heading, a note and one article per message.
    static func body(_ messages: [OutboxStore.StoredMessage], composer: MailComposer) -> String {
        let items = messages.map { message in
            let composed = composer.compose(message, date: message.createdAt)
            return Self.messageTemplate.render([
                "subject": composed?.subject ?? "(unknown kind \(message.kind))", "recipient": message.recipient,
                "kind": message.kind, "created": created(message.createdAt), "state": message.state,
                "link": message.link.map { Self.linkTemplate.render(["link": $0]) } ?? "", "text": composed?.text ?? "",
            ])
        }
        return Self.template.render([
            "appName": composer.appName, "limit": String(limit),
            "messages": messages.isEmpty ? Self.emptyTemplate.render() : items.joined(separator: "\n"),
        ])
    }

    static let template = Pages.template("mailbox.html", PageFiles.mailboxHtml)
    static let messageTemplate = Pages.template("mailbox-message.html", PageFiles.mailboxMessageHtml)
    static let linkTemplate = Pages.template("mailbox-link.html", PageFiles.mailboxLinkHtml)
    static let emptyTemplate = Pages.template("mailbox-empty.html", PageFiles.mailboxEmptyHtml)
    static let assets = PageAssets(style: Pages.withoutFinalLineBreak(PageFiles.mailboxCss), script: "")

    /// ISO-8601 UTC with milliseconds, as the API writes times.
    private static func created(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISO8601.write(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
