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
            title: "\(composer.appName) dev mailbox", style: Self.style, body: Self.body(messages, composer: composer),
            script: "", config: "{}", cacheControl: "no-store")
    }

    /// The page's body: a heading, a note and one article per message.
    static func body(_ messages: [OutboxStore.StoredMessage], composer: MailComposer) -> String {
        var items = ""
        for message in messages {
            let composed = composer.compose(message, date: message.createdAt)
            let link = message.link.map { #"<p class="link"><a href="\#(MailComposer.escape($0))">\#(MailComposer.escape($0))</a></p>"# } ?? ""
            items += """
                <article>
                <h2>\(MailComposer.escape(composed?.subject ?? "(unknown kind \(message.kind))"))</h2>
                <dl>
                <dt>To</dt><dd>\(MailComposer.escape(message.recipient))</dd>
                <dt>Kind</dt><dd>\(MailComposer.escape(message.kind))</dd>
                <dt>Created</dt><dd>\(created(message.createdAt))</dd>
                <dt>State</dt><dd>\(MailComposer.escape(message.state))</dd>
                </dl>
                \(link)
                <pre>\(MailComposer.escape(composed?.text ?? ""))</pre>
                </article>

                """
        }
        if messages.isEmpty { items = "<p>No messages yet.</p>\n" }
        return """
            <h1>\(MailComposer.escape(composer.appName)) dev mailbox</h1>
            <p class="note">No SMTP server is configured (GATEHOUSE_SMTP_URL): mail stays in the outbox. \
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
