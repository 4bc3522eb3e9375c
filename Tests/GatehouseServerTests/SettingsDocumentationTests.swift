import Foundation
import Testing

@testable import GatehouseServer

/// The settings' documentation follows the declarations that parse them: docs/settings.md is
/// exactly what `gatehouse settings --markdown` prints, and no `GATEHOUSE_…` name in the sources
/// is missing from docs/.
@Suite struct SettingsDocumentationTests {
    @Test func committedSettingsPageIsTheGeneratedOne() throws {
        let path = PackagePaths.root + "/docs/settings.md"
        let committed = try? String(contentsOfFile: path, encoding: .utf8)
        #expect(
            committed == Settings.markdown,
            "docs/settings.md differs from the settings the server declares; regenerate it: \(Settings.markdownCommand)")
    }

    /// Every `GATEHOUSE_…` name anywhere under Sources/ (settings read, removed settings named in
    /// errors, the demo's variables) appears in docs/, so a variable read without a spec, or
    /// a spec whose page was not regenerated, fails here.
    @Test func everyNameInTheSourcesIsDocumented() throws {
        let documented = try Self.names(inFilesUnder: PackagePaths.root + "/docs")
        let used = try Self.names(inFilesUnder: PackagePaths.root + "/Sources")
        #expect(used.count > Settings.specs.count / 2, "the scan finds the settings' names")
        for (name, file) in used.sorted(by: { $0.key < $1.key }) where !documented.keys.contains(name) {
            Issue.record("\(name) (in Sources/\(file)) is not in docs/: declare it in Settings.specs and regenerate docs/settings.md (\(Settings.markdownCommand)), or document it in docs/")
        }
        for spec in Settings.specs where spec.environment.hasPrefix("GATEHOUSE_") {
            #expect(used[spec.environment] != nil, "\(spec.environment) is found by the scan")
        }
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

    /// `GATEHOUSE_…` names in the files under `directory`, each with one file it is in.
    static func names(inFilesUnder directory: String) throws -> [String: String] {
        var names: [String: String] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        while let relative = enumerator.nextObject() as? String {
            guard let text = try? String(contentsOfFile: directory + "/" + relative, encoding: .utf8) else { continue }
            for name in Self.names(in: text) where names[name] == nil { names[name] = relative }
        }
        return names
    }

    /// The maximal `GATEHOUSE_[A-Z0-9_]+` words in `text` (trailing underscores dropped; the bare
    /// prefix, as in `hasPrefix("GATEHOUSE_")`, is no name).
    static func names(in text: String) -> Set<String> {
        let bytes = Array(text.utf8)
        let prefix = Array("GATEHOUSE_".utf8)
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_")
        }
        var names: Set<String> = []
        var index = 0
        while index + prefix.count <= bytes.count {
            guard bytes[index..<index + prefix.count].elementsEqual(prefix), index == 0 || !isNameByte(bytes[index - 1]) else {
                index += 1
                continue
            }
            var end = index + prefix.count
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            var last = end
            while bytes[last - 1] == UInt8(ascii: "_") { last -= 1 }
            if last > index + prefix.count { names.insert(String(decoding: bytes[index..<last], as: UTF8.self)) }
            index = end
        }
        return names
    }

    @Test func namesFindsWholeWords() {
        #expect(Self.names(in: #"env["GATEHOUSE_SERVER"], GATEHOUSE_SESSION_CACHE_SIZE, XGATEHOUSE_NO, "GATEHOUSE_" + x, GATEHOUSE_MFA_."#)
            == ["GATEHOUSE_SERVER", "GATEHOUSE_SESSION_CACHE_SIZE", "GATEHOUSE_MFA"])
    }
}
