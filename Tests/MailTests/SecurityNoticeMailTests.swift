import Foundation
import Mail
import TestSupport
import Testing

/// The security notices' text: what happened, when and from where, and what to do if it was not
/// the user, in every language; the request's address and User-Agent are text, never template.
@Suite struct SecurityNoticeMailTests {
    static let notices = MailKind.allCases.filter(\.isSecurityNotice)
    static let occurrence = NoticeOccurrence(at: MailComposerTests.date, address: "192.0.2.1", device: "Firefox/130 {app}")

    static func compose(_ kind: MailKind, _ language: MailLanguage, occurrence: NoticeOccurrence? = occurrence) -> ComposedMail {
        MailComposerTests.composer.compose(
            MailContent(kind: kind, language: language, recipient: "ann@example.com", username: "ann", occurrence: occurrence),
            messageId: "<0123abcd@example.com>", date: MailComposerTests.date)
    }

    @Test func theSevenNotices() {
        #expect(Set(Self.notices.map(\.rawValue)) == [
            "new_device_sign_in", "two_step_enabled", "two_step_disabled", "recovery_code_used", "passkey_added", "passkey_removed",
            "account_disabled",
        ])
    }

    @Test(arguments: notices, MailLanguage.allCases)
    func eachSaysWhenAndFromWhere(kind: MailKind, language: MailLanguage) throws {
        let mail = Self.compose(kind, language)
        let parsed = try SMTPTestServer.parse(mail.data)
        #expect(parsed.defects == [])
        #expect(mail.text.contains("2026-12-02 08:00 UTC"))
        #expect(mail.text.contains("192.0.2.1, Firefox/130 {app}"), "the device is not filled as a template")
        #expect(mail.html.contains("192.0.2.1, Firefox/130 {app}"))
        #expect(!mail.text.contains("href=") && !mail.html.contains("href="), "no link that acts by itself")
        // Every language names the app, and the other kinds' paragraphs are not borrowed.
        #expect(mail.subject.contains("Gatehouse"))
        let english = Self.compose(kind, .english)
        #expect(language == .english || english.subject != mail.subject)
    }

    @Test func theFrenchNoticeIsFrench() {
        let mail = Self.compose(.newDeviceSignIn, .french)
        #expect(mail.subject == "Nouvelle connexion à votre compte Gatehouse")
        #expect(mail.text.contains("Quand : 2026-12-02 08:00 UTC"))
        #expect(mail.text.contains("Depuis : 192.0.2.1, Firefox/130 {app}"))
        #expect(mail.text.contains("Mot de passe oublié"))
    }

    @Test func withoutAnAddressOrDeviceItSaysUnknown() {
        let mail = Self.compose(.passkeyRemoved, .english, occurrence: NoticeOccurrence(at: MailComposerTests.date))
        #expect(mail.text.contains("From: an unknown address, an unknown device"))
    }
}
