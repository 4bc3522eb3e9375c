import Foundation
import Testing

@testable import GatehouseServer

/// The settings' documentation follows the declarations that parse them: docs/settings.md is
/// exactly what `gatehouse settings --markdown` prints.
@Suite struct SettingsDocumentationTests {
    @Test func committedSettingsPageIsTheGeneratedOne() throws {
        let path = PackagePaths.root + "/docs/settings.md"
        let committed = try? String(contentsOfFile: path, encoding: .utf8)
        #expect(
            committed == Settings.markdown,
            "docs/settings.md differs from the settings the server declares; regenerate it: \(Settings.markdownCommand)")
    }

    /// Backquotes mark code in a summary; an odd number would turn the rest of a table row into code.
    @Test func summariesPairTheirBackquotes() {
        for spec in Settings.specs {
            #expect(spec.summary.filter { $0 == "`" }.count % 2 == 0, "\(spec.environment)")
        }
    }

    @Test(arguments: [
        ("plain words", "plain words"),
        ("`a|b` or c|d", "`a\\|b` or c\\|d"),
        ("unset: http://<host>:<port>", "unset: http://\\<host\\>:\\<port\\>"),
        ("`http://<host>:<port>`", "`http://<host>:<port>`"),
        ("or *; [user]", "or \\*; \\[user\\]"),
        ("statement_timeout", "statement\\_timeout"),
        ("use GATEHOUSE_HASH_MAX_WAIT (--hash-max-wait).", "use `GATEHOUSE_HASH_MAX_WAIT` (`--hash-max-wait`)."),
        ("with DATABASE_URL, a log-in -- then", "with `DATABASE_URL`, a log-in -- then"),
        ("`GATEHOUSE_MFA` is `off`", "`GATEHOUSE_MFA` is `off`"),
    ])
    func markdownCell(_ text: String, _ cell: String) {
        #expect(Settings.markdownCell(text) == cell)
    }

    @Test func pageListsEverySettingOnce() {
        let rows = Settings.markdown.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == Settings.specs.count + Settings.removed.count)
        for spec in Settings.specs {
            #expect(rows.filter { $0.hasPrefix("| `\(spec.environment)` | `--\(spec.flag) ") }.count == 1, "\(spec.environment)")
        }
        // A machine's core count never reaches the page.
        #expect(Settings.specs.filter { $0.documentedDefault != nil }.map(\.flag).sorted()
            == ["hash-workers", "http-threads", "session-lookup-batches"])
    }
}
