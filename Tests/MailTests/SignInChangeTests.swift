import Foundation
import Mail
import TestSupport
import Testing

/// The sign-in notices: the changes they list, in every language, and the form the outbox keeps.
@Suite struct SignInChangeTests {
    static let everyChange: [SignInChange] = [
        .providerAdded("google"), .providerReplaced("apple"), .providerRemoved("acme:corp"), .passkeysRemoved(1),
        .passkeysRemoved(3), .guestAccessRemoved, .twoStepVerificationKept,
    ]

    static func compose(_ kind: MailKind, _ language: MailLanguage, _ changes: [SignInChange]) -> ComposedMail {
        MailComposerTests.composer.compose(
            MailContent(kind: kind, language: language, recipient: "ann@example.com", username: "ann", signInChanges: changes),
            messageId: "<0123abcd@example.com>", date: MailComposerTests.date)
    }

    @Test func storedValuesReadBack() {
        for change in Self.everyChange { #expect(SignInChange(storedValue: change.storedValue) == change) }
        #expect(SignInChange.providerRemoved("acme:corp").storedValue == "provider_removed:acme:corp")
        for unknown in ["", "provider_added", "provider_added:", "passkeys_removed:0", "passkeys_removed:x", "guest_access_removed:1", "later_kind:x"] {
            #expect(SignInChange(storedValue: unknown) == nil, "\(unknown)")
        }
    }

    /// Each change is a paragraph of its own after the lead, in the text and the HTML, with the
    /// provider's name capitalised and the passkeys counted.
    @Test(arguments: [MailKind.signInChanged, .signInMethodsRemoved], MailLanguage.allCases)
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
    @Test(arguments: MailKind.allCases.filter { $0 != .signInChanged && $0 != .signInMethodsRemoved })
    func otherKindsListNone(kind: MailKind) {
        #expect(!Self.compose(kind, .english, Self.everyChange).text.contains("• "))
    }

    /// A provider's name is the operator's: it is not read as a template placeholder, and HTML escapes it.
    @Test func providerNamesAreText() throws {
        let mail = Self.compose(.signInChanged, .english, [.providerAdded("<b>{app}</b>")])
        #expect(mail.text.contains("• Sign-in with <b>{app}</b> was added."))
        #expect(mail.html.contains("Sign-in with &lt;b&gt;{app}&lt;/b&gt; was added."))
    }
}
