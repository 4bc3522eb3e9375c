import Mail
import Testing

@Suite struct MailLanguageTests {
    @Test(arguments: [
        // Absent, empty and garbage: English.
        (nil, MailLanguage.english), ("", .english), (",,, ;;", .english), ("%%%, 12-ab", .english), ("de-DE, ja", .english),
        // Exact, regions, case.
        ("es", .spanish), ("es-MX", .spanish), ("FR-ca", .french), ("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", .korean),
        ("zh-Hant-TW", .english),
        // q-values choose, whatever the order; on a tie the earlier wins.
        ("en;q=0.5, fr;q=0.8", .french), ("de, es;q=0.4, ko;q=0.41", .korean), ("fr, es", .french), ("es,fr", .spanish),
        ("fr;q=0.5, es;q=0.500", .french), ("en;q=0.9, es-MX", .spanish), ("es-MX;q=0.2, es;q=0.9, fr;q=0.5", .spanish),
        // q=0 excludes; * stands for the unnamed ones.
        ("en;q=0, es;q=0.1", .spanish), ("fr;q=0", .english), ("*", .english), ("en;q=0, *;q=0.5", .spanish),
        ("de, *;q=0.1, ko;q=0.2", .korean), ("*;q=0", .english),
        // Malformed q-values and ranges are skipped, not guessed at.
        ("fr;q=2, es;q=0.3", .spanish), ("fr;q=0.1234, ko", .korean), ("fr;q=abc", .english), ("fr;level=1", .english),
        ("1es, ko", .korean), ("es-toolongsubtag, ko;q=0.1", .korean), ("  es ;  q=0.7 , en ; q=0.6", .spanish),
        ("fr;q=1.0, es;q=1.001", .french),
    ] as [(String?, MailLanguage)])
    func acceptLanguage(header: String?, expected: MailLanguage) {
        #expect(MailLanguage(acceptLanguage: header) == expected)
    }

    @Test func aHugeHeaderIsReadOnlyInPart() {
        let header = Array(repeating: "de", count: 10_000).joined(separator: ",") + ",fr"
        #expect(MailLanguage(acceptLanguage: header) == .english)
    }
}

@Suite struct MailAddressTests {
    @Test(arguments: [
        ("no-reply@example.com", nil, "no-reply@example.com"),
        ("Gatehouse <no-reply@localhost>", "Gatehouse", "no-reply@localhost"),
        ("  \"Acme, Inc.\" <a@b.example>  ", "Acme, Inc.", "a@b.example"),
        ("<a@b.example>", nil, "a@b.example"),
        ("\"Say \\\"hi\\\"\" <a@b.example>", "Say \"hi\"", "a@b.example"),
        ("Équipe 게이트 <a@b.example>", "Équipe 게이트", "a@b.example"),
    ] as [(String, String?, String)])
    func parses(text: String, name: String?, address: String) throws {
        let parsed = try MailAddress(parsing: text)
        #expect(parsed.name == name)
        #expect(parsed.address == address)
    }

    @Test(arguments: [
        ("", MailAddressError.empty), ("   ", .empty), ("A <a@b>\r\nBcc: e@f", .controlCharacter), ("a@b\n", .controlCharacter),
        ("Name <a@b", .unbalancedAngleBracket), ("Name a@b>", .unbalancedAngleBracket), ("<<a@b>>", .unbalancedAngleBracket),
        ("Name a@b", .spaceInAddress), ("no-reply", .notOneAtSign), ("a@b@c", .notOneAtSign), ("Name <@b>", .emptyLocalPartOrDomain),
        ("a@", .emptyLocalPartOrDomain),
    ])
    func refuses(text: String, error: MailAddressError) {
        #expect(throws: error) { try MailAddress(parsing: text) }
        #expect(!error.description.isEmpty)
    }
}
