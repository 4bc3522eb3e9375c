import Foundation

/// Turns ``MailContent`` into a whole message: `multipart/alternative` with a text/plain and a
/// text/html part (UTF-8, quoted-printable), headers encoded and folded as RFC 5322 and RFC 2047
/// require. The same content, Message-ID and date always give the same bytes, so a retry sends
/// the same message.
public struct MailComposer: Sendable {
    public let appName: String
    public let from: MailAddress

    public init(appName: String, from: MailAddress) {
        self.appName = appName
        self.from = from
    }

    /// `messageId` is stored with the outbox row (so a retry sends the same one), like
    /// `<hex@host>`; `date` is the Date header's time.
    public func compose(_ content: MailContent, messageId: String, date: Date) -> ComposedMail {
        let texts = MailTexts.of(content.language)
        let template = texts[content.kind]
        let link = template.action != nil ? content.link.map(Self.singleLine) : nil
        var values = ["app": appName, "user": content.username]
        var validity: [String] = []
        if link != nil, let lifetime = content.linkLifetime, let sentence = template.validity {
            values["duration"] = texts.durations.say(lifetime)
            validity = [sentence]
        }
        let fill = { (text: String) in Self.fill(text, values) }

        let subject = Self.singleLine(fill(template.subject))
        // Provider names are the operator's, not templates: they are not filled.
        let changes = content.kind.listsSignInChanges ? content.signInChanges.map { "• " + texts.signInChange.describe($0) } : []
        // When and from where: the address and User-Agent are the request's, filled in one pass
        // like every value, so neither is read as a placeholder.
        var occurrence: [String] = []
        if content.kind.isSecurityNotice, let occurred = content.occurrence {
            let notices = texts.securityNotices
            let noticeValues = values.merging(notices.values(occurred)) { $1 }
            occurrence = [notices.when, notices.from].map { Self.singleLine(Self.fill($0, noticeValues)) }
        }
        let before = [fill(texts.greeting)] + template.lead.map(fill) + changes + occurrence
        let after = (validity + template.trail).map(fill) + [fill(texts.signOff)]
        // Paragraphs apart by blank lines: the link stands alone on its line.
        let text = (before + (link.map { [$0] } ?? []) + after).joined(separator: "\n\n") + "\n"
        let html = Self.html(
            language: content.language, subject: subject, before: before,
            button: link.map { (template.action!, $0, texts.linkHint) }, after: after)

        // "=_" never occurs in quoted-printable text ("=" is always followed by two hex digits
        // or a line end), so this boundary cannot occur in either part.
        let boundary = "=_gatehouse_alternative"
        let headers = [
            MIMEEncoding.header("From", displayName: from.name.map(Self.singleLine), address: Self.singleLine(from.address)),
            MIMEEncoding.header("To", displayName: nil, address: Self.singleLine(content.recipient)),
            MIMEEncoding.header("Subject", subject),
            "Date: " + MIMEEncoding.date(date),
            "Message-ID: " + Self.singleLine(messageId),
            "MIME-Version: 1.0",
            "Content-Language: " + content.language.rawValue,
            "Auto-Submitted: auto-generated",  // RFC 3834: no vacation replies to this
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
        ]
        var message = headers.joined(separator: "\r\n") + "\r\n\r\n"
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            message += "--\(boundary)\r\nContent-Type: \(type); charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
            message += MIMEEncoding.quotedPrintable(body)
        }
        message += "--\(boundary)--\r\n"
        return ComposedMail(subject: subject, text: text, html: html, data: Array(message.utf8))
    }

    /// The HTML part: `HTML/message.html` around the paragraphs (`paragraph.html`) and the
    /// button with the link (`button.html`). Mail clients ignore style sheets, hence the inline styles.
    private static func html(
        language: MailLanguage, subject: String, before: [String], button: (label: String, link: String, hint: String)?,
        after: [String]
    ) -> String {
        func paragraphs(_ texts: [String]) -> String { texts.map { paragraph.render(["text": $0]) }.joined() }
        var body = paragraphs(before)
        if let button {
            body += Self.button.render(["link": button.link, "label": button.label, "hint": button.hint])
        }
        body += paragraphs(after)
        return message.render(["language": language.rawValue, "subject": subject, "body": body])
    }

    private static let message = template("message.html", MailHTML.messageHtml)
    private static let paragraph = template("paragraph.html", MailHTML.paragraphHtml)
    private static let button = template("button.html", MailHTML.buttonHtml)

    /// The compiled-in file `HTML/name`. One that does not parse is a broken build, which stops the
    /// program; every test that composes a message finds it.
    private static func template(_ name: String, _ text: String) -> HTMLTemplate {
        do { return try HTMLTemplate(file: "HTML/" + name, text: text) } catch { preconditionFailure(error.description) }
    }

    /// Each `{name}` of `values` in `template` replaced in one pass over the template, so no
    /// value is read as a placeholder.
    private static func fill(_ template: String, _ values: [String: String]) -> String {
        var filled = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            filled += rest[..<open]
            if let close = rest[open...].firstIndex(of: "}"), let value = values[String(rest[rest.index(after: open)..<close])] {
                filled += value
                rest = rest[rest.index(after: close)...]
            } else {
                filled.append("{")
                rest = rest[rest.index(after: open)...]
            }
        }
        return filled + rest
    }

    /// HTML text and attribute value escaping (`&`, `<`, `>`, `"`, `'`); the server's pages use it too.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Control characters (CR and LF above all) replaced by spaces: header text from a stored
    /// row can never start a header of its own.
    private static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
