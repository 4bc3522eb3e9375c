import Foundation
import Mail
import TestSupport
import Testing

/// The sign-in notices: the changes they list, in every language, and the form the outbox keeps.
@Suite struct SignInChangeTests {
    static let everyChange: [SignInChange] = [
        .providerAdded("google"), .providerReplaced("apple"), .providerRemoved("acme:corp"), .passkeysRemoved(1),
        .passkeysRemoved(3), .guestAccessRemoved, .twoStepVerificationKept, .appAuthorized("Acme Notes"),
    ]
    /// The kinds that list their changes.
    static let listingKinds: [MailKind] = [.signInChanged, .signInMethodsRemoved, .appAuthorized]

    static func compose(_ kind: MailKind, _ language: MailLanguage, _ changes: [SignInChange]) -> ComposedMail {
        MailComposerTests.composer.compose(
            MailContent(kind: kind, language: language, recipient: "ann@example.com", username: "ann", signInChanges: changes),
            messageId: "<0123abcd@example.com>", date: MailComposerTests.date)
    }

    @Test func storedValuesReadBack() {
        for change in Self.everyChange { #expect(SignInChange(storedValue: change.storedValue) == change) }
        #expect(SignInChange.providerRemoved("acme:corp").storedValue == "provider_removed:acme:corp")
        #expect(SignInChange.appAuthorized("Notes: work").storedValue == "app_authorized:Notes: work")
        for unknown in ["", "provider_added", "provider_added:", "app_authorized", "app_authorized:", "passkeys_removed:0", "passkeys_removed:x", "guest_access_removed:1", "later_kind:x"] {
            #expect(SignInChange(storedValue: unknown) == nil, "\(unknown)")
        }
    }

    /// Each change is a paragraph of its own after the lead, in the text and the HTML, with the
    /// provider's name capitalised and the passkeys counted.
    @Test(arguments: Self.listingKinds, MailLanguage.allCases)
    func everyChangeIsAParagraph(kind: MailKind, language: MailLanguage) throws {
        let mail = Self.compose(kind, language, Self.everyChange)
        let parsed = try SMTPTestServer.parse(mail.data)
        #expect(parsed.defects == [])
        let text = try #require(parsed.text)
        let items = text.components(separatedBy: "\n\n").filter { $0.hasPrefix("• ") }
        #expect(items.count == Self.everyChange.count, "\(text)")
        #expect(items[0].contains("Google") && items[1].contains("Apple") && items[2].contains("Acme:corp"))
        #expect(items[4].contains("3") && !items[3].contains("3"))
        #expect(Set(items).count == items.count)
        #expect(try #require(parsed.html).components(separatedBy: "<p>• ").count == Self.everyChange.count + 1)
        #expect(!text.contains("{provider}") && !text.contains("{count}"))
    }

    /// The other kinds never list changes.
    @Test(arguments: MailKind.allCases.filter { !Self.listingKinds.contains($0) })
    func otherKindsListNone(kind: MailKind) {
        #expect(!Self.compose(kind, .english, Self.everyChange).text.contains("• "))
    }

    /// A provider's name is the operator's: it is not read as a template placeholder, and HTML escapes it.
    @Test func providerNamesAreText() throws {
        let mail = Self.compose(.signInChanged, .english, [.providerAdded("<b>{app}</b>")])
        #expect(mail.text.contains("• Sign-in with <b>{app}</b> was added."))
        #expect(mail.html.contains("Sign-in with &lt;b&gt;{app}&lt;/b&gt; was added."))
    }

    /// An app's name is written as the consent screen showed it, in every language: neither
    /// capitalised nor read as a placeholder, and escaped in HTML.
    @Test(arguments: MailLanguage.allCases)
    func appNamesAreText(language: MailLanguage) throws {
        let mail = Self.compose(.appAuthorized, language, [.appAuthorized("notes <b>{app}</b>")])
        #expect(mail.text.contains("\n\n• notes <b>{app}</b>\n\n"), "\(mail.text)")
        #expect(mail.html.contains("• notes &lt;b&gt;{app}&lt;/b&gt;"))
        #expect(mail.subject.contains("Gatehouse"))
    }
}
