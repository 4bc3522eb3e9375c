import Foundation
import Mail
import TestSupport
import Testing

/// Composed messages, read back by an independent MIME parser (Python's `email` package).
@Suite struct MailComposerTests {
    static let composer = MailComposer(appName: "Gatehouse", from: try! MailAddress(parsing: "Gatehouse <no-reply@example.com>"))
    static let link = "https://auth.example.com/reset-password?token=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4eHh4eA&username=ann%20lee"
    static let date = Date(timeIntervalSince1970: 1_796_198_400)  // 2026-12-02 08:00:00 UTC, a Wednesday

    static func compose(_ kind: MailKind, _ language: MailLanguage, username: String = "ann", composer: MailComposer = composer)
        -> ComposedMail
    {
        let link = kind == .verifyEmail || kind == .resetPassword ? link : nil
        return composer.compose(
            MailContent(kind: kind, language: language, recipient: "ann@example.com", username: username, link: link),
            messageId: "<0123abcd@example.com>", date: date)
    }

    /// The header block's lines as sent (folded).
    static func headerLines(_ mail: ComposedMail) -> [String] {
        let text = String(decoding: mail.data, as: UTF8.self)
        return text.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
    }

    @Test(arguments: MailKind.allCases, MailLanguage.allCases)
    func everyKindAndLanguageParsesBack(kind: MailKind, language: MailLanguage) throws {
        let mail = Self.compose(kind, language)
        let parsed = try SMTPTestServer.parse(mail.data)
        #expect(parsed.defects == [])
        #expect(parsed.contentType == "multipart/alternative")
        #expect(parsed.subject == mail.subject)
        #expect(mail.subject.contains("Gatehouse"))
        #expect(parsed.header("Message-ID") == "<0123abcd@example.com>")
        #expect(parsed.header("MIME-Version") == "1.0")
        #expect(parsed.header("From") == "Gatehouse <no-reply@example.com>")
        #expect(parsed.header("To") == "ann@example.com")
        #expect(parsed.header("Date") == "Wed, 02 Dec 2026 08:00:00 +0000")
        #expect(parsed.header("Content-Language") == language.rawValue)

        let text = try #require(parsed.text)
        let html = try #require(parsed.html)
        #expect(text == mail.text)
        #expect(html == mail.html)
        #expect(text.contains("ann") && text.contains("Gatehouse"))
        #expect(html.contains("<html lang=\"\(language.rawValue)\">"))
        let lines = text.components(separatedBy: "\n")
        if kind == .verifyEmail || kind == .resetPassword {
            // The link alone on its line, and in the HTML as a button and as text (escaped).
            #expect(lines.contains(Self.link))
            let escaped = Self.link.replacingOccurrences(of: "&", with: "&amp;")
            #expect(html.components(separatedBy: "href=\"\(escaped)\"").count == 3)
            #expect(html.contains(">\(escaped)</a>"))
        } else {
            #expect(!text.contains("https://") && !html.contains("href="))
        }

        // Header lines within 78 characters, body lines within 76, every line CRLF-ended.
        let raw = String(decoding: mail.data, as: UTF8.self)
        #expect(raw.hasSuffix("\r\n"))
        #expect(!raw.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(Self.headerLines(mail).allSatisfy { $0.count <= 78 }, "\(Self.headerLines(mail))")
        let body = raw.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        #expect(body.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 })
        #expect(mail.data.allSatisfy { $0 < 0x80 }, "7-bit on the wire: quoted-printable and RFC 2047")

        // Non-ASCII subjects go as RFC 2047 encoded words, ASCII ones as they are.
        let subjectField = Self.headerLines(mail).drop { !$0.hasPrefix("Subject:") }
        if mail.subject.allSatisfy(\.isASCII) {
            #expect(subjectField.first == "Subject: \(mail.subject)")
        } else {
            #expect(subjectField.first?.hasPrefix("Subject: =?UTF-8?B?") == true)
        }
    }

    @Test(arguments: [MailLanguage.spanish, .french, .korean])
    func nonEnglishSubjectsAreEncodedWords(language: MailLanguage) throws {
        let mail = Self.compose(.resetPassword, language)
        #expect(mail.subject.contains { !$0.isASCII })
        let subject = try #require(Self.headerLines(mail).first { $0.hasPrefix("Subject:") })
        #expect(subject.hasPrefix("Subject: =?UTF-8?B?") && subject.hasSuffix("?="))
        #expect(try SMTPTestServer.parse(mail.data).subject == mail.subject)
    }

    @Test func longSubjectsAndNamesAreFoldedAndDecodeBack() throws {
        let app = "The Very Long Application Name Of A Company With Many Words In Its Name"
        let korean = "게이트하우스 인증 서비스 아주 긴 이름의 애플리케이션 이름입니다"
        for appName in [app, korean] {
            let composer = MailComposer(appName: appName, from: try MailAddress(parsing: "Équipe \(appName) <no-reply@example.com>"))
            let mail = Self.compose(.emailChanged, .korean, composer: composer)
            let parsed = try SMTPTestServer.parse(mail.data)
            #expect(parsed.defects == [])
            #expect(parsed.subject == mail.subject)
            // Python's address parser keeps the space between two encoded words, which RFC 2047
            // §6.2 says to drop: compare without spaces.
            let from = try #require(parsed.header("From"))
            #expect(from.replacing(" ", with: "") == "Équipe \(appName) <no-reply@example.com>".replacing(" ", with: ""))
            let lines = Self.headerLines(mail)
            #expect(lines.allSatisfy { $0.count <= 78 }, "\(lines)")
            #expect(lines.filter { $0.hasPrefix(" ") }.count >= 2, "folded")
        }
    }

    @Test(arguments: [
        ("Acme, Inc. <no-reply@acme.example>", "\"Acme, Inc.\" <no-reply@acme.example>"),
        ("\"Say \\\"hi\\\"\" <a@b.example>", "\"Say \\\"hi\\\"\" <a@b.example>"),
        ("no-reply@acme.example", "no-reply@acme.example"),
    ])
    func displayNamesAreQuotedWhenTheyMustBe(from: String, header: String) throws {
        let composer = MailComposer(appName: "Acme", from: try MailAddress(parsing: from))
        let mail = Self.compose(.accountDeleted, .english, composer: composer)
        #expect(Self.headerLines(mail).contains("From: \(header)"))
        let parsed = try SMTPTestServer.parse(mail.data)
        #expect(parsed.defects == [])
        #expect(parsed.header("From") == header)
    }

    @Test func aNonASCIIDisplayNameIsAnEncodedWord() throws {
        let composer = MailComposer(appName: "게이트", from: try MailAddress(parsing: "Équipe 게이트 <no-reply@example.com>"))
        let mail = Self.compose(.verifyEmail, .french, composer: composer)
        #expect(Self.headerLines(mail).contains { $0.hasPrefix("From: =?UTF-8?B?") && $0.hasSuffix("?= <no-reply@example.com>") })
        #expect(try SMTPTestServer.parse(mail.data).header("From") == "Équipe 게이트 <no-reply@example.com>")
    }

    @Test func usernameAndAppNameAreEscapedInHTML() throws {
        let composer = MailComposer(appName: "A&B <Apps>", from: try MailAddress(parsing: "no-reply@example.com"))
        let username = "<script>alert('x')</script>{app}"
        let mail = Self.compose(.verifyEmail, .english, username: username, composer: composer)
        let parsed = try SMTPTestServer.parse(mail.data)
        let html = try #require(parsed.html)
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;{app}"))
        #expect(html.contains("A&amp;B &lt;Apps&gt;"))
        // The plain text says it as it is; a placeholder in a username stays text.
        #expect(parsed.text?.contains("Hello \(username),") == true)
        #expect(parsed.subject == "Confirm your email address for A&B <Apps>")
    }

    @Test func headerTextCannotStartAHeader() throws {
        let mail = Self.composer.compose(
            MailContent(kind: .accountDeleted, language: .english, recipient: "ann@example.com\r\nBcc: eve@example.com", username: "ann"),
            messageId: "<id@example.com>\r\nX-Injected: 1", date: Self.date)
        let parsed = try SMTPTestServer.parse(mail.data)
        #expect(parsed.header("Bcc") == nil && parsed.header("X-Injected") == nil)
        #expect(parsed.defects == [])
    }

    @Test func theSameInputGivesTheSameMessage() {
        #expect(Self.compose(.resetPassword, .french).data == Self.compose(.resetPassword, .french).data)
        let other = Self.composer.compose(
            MailContent(kind: .resetPassword, language: .french, recipient: "ann@example.com", username: "ann", link: Self.link),
            messageId: "<ffff@example.com>", date: Self.date)
        #expect(String(decoding: other.data, as: UTF8.self).contains("\r\nMessage-ID: <ffff@example.com>\r\n"))
    }

    /// The newcomer's finding: the verification mail said only that its link "expires after a
    /// while". Both link mails say how long the link works, from the token's lifetime
    /// (`GATEHOUSE_VERIFY_TOKEN_TTL`, `GATEHOUSE_RESET_TOKEN_TTL`), in every language, in the unit
    /// that says it exactly or else rounded down.
    @Test(arguments: [
        (MailKind.verifyEmail, MailLanguage.english, 86_400, "This link works for 24 hours."),
        (.resetPassword, .english, 3600, "This link works once, for 1 hour."),
        (.verifyEmail, .english, 9000, "This link works for 2 hours."),
        (.verifyEmail, .spanish, 7 * 86_400, "Este enlace funciona durante 7 días."),
        (.resetPassword, .spanish, 1800, "Este enlace funciona una sola vez, durante 30 minutos."),
        (.verifyEmail, .french, 172_800, "Ce lien fonctionne pendant 2 jours."),
        (.resetPassword, .french, 60, "Ce lien ne sert qu'une fois, pendant 1 minute."),
        (.verifyEmail, .korean, 86_400, "이 링크는 24시간 동안 유효합니다."),
        (.resetPassword, .korean, 5400, "이 링크는 90분 동안 한 번만 쓸 수 있습니다."),
    ])
    func theMailSaysHowLongItsLinkWorks(kind: MailKind, language: MailLanguage, lifetime: Int, sentence: String) throws {
        let mail = Self.composer.compose(
            MailContent(
                kind: kind, language: language, recipient: "ann@example.com", username: "{duration}", link: Self.link,
                linkLifetime: lifetime),
            messageId: "<id@example.com>", date: Self.date)
        let parsed = try SMTPTestServer.parse(mail.data)
        let paragraphs = try #require(parsed.text).components(separatedBy: "\n\n")
        let link = try #require(paragraphs.firstIndex(of: Self.link))
        #expect(paragraphs[link + 1] == sentence, "right after the link: \(paragraphs)")
        #expect(try #require(parsed.html).contains("<p>\(sentence.replacing("'", with: "&#39;"))</p>"))
        #expect(paragraphs[0].contains("{duration}"), "a placeholder in a username stays text")
        // Without a known lifetime the mail says nothing about it.
        let unknown = Self.compose(kind, language)
        #expect(!unknown.text.contains(sentence) && unknown.text.components(separatedBy: "\n\n").count == paragraphs.count - 1)
    }

    @Test func aLinkIsOnlyShownForTheKindsThatHaveOne() {
        let mail = Self.composer.compose(
            MailContent(kind: .passwordChanged, language: .english, recipient: "ann@example.com", username: "ann", link: Self.link),
            messageId: "<id@example.com>", date: Self.date)
        #expect(!mail.text.contains(Self.link) && !mail.html.contains("href="))
    }
}
