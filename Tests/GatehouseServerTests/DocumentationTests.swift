import Foundation
import Testing

/// The README and docs/ describe this repository and nothing outside it: their links lead to
/// files and headings that exist here, no file points at a folder beside the checkout, and the
/// architecture page names every target of Package.swift.
@Suite struct DocumentationTests {
    static let root = PackagePaths.root

    /// README.md and every Markdown file in docs/, as paths relative to the root.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs")
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    @Test func linksLeadToFilesAndHeadingsOfTheRepository() throws {
        let pages = try Self.pages()
        #expect(pages.count > 5, "README.md and the pages of docs/")
        let linkPattern = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for page in pages {
            let text = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
            for match in text.matches(of: linkPattern) {
                guard let target = match.output[1].substring.map(String.init) else { continue }
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let directory = (page as NSString).deletingLastPathComponent
                let relative = parts[0].isEmpty ? page : (directory as NSString).appendingPathComponent(parts[0])
                let resolved = ((Self.root + "/" + relative) as NSString).standardizingPath
                guard resolved.hasPrefix(Self.root + "/") else {
                    Issue.record("\(page) links \(target), outside the repository")
                    continue
                }
                guard FileManager.default.fileExists(atPath: resolved) else {
                    Issue.record("\(page) links \(target): no such file")
                    continue
                }
                if parts.count == 2, resolved.hasSuffix(".md") {
                    let headings = try Self.anchors(String(contentsOfFile: resolved, encoding: .utf8))
                    #expect(headings.contains(parts[1]), "\(page) links \(target): no such heading")
                }
            }
        }
        #expect(checked > 20, "the pages' links are found")
    }

    /// The anchors GitHub gives a page's headings: lower case, spaces as hyphens, other
    /// punctuation dropped.
    static func anchors(_ markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
            anchors.insert(kept.replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }

    @Test func anchorsFollowGitHub() {
        #expect(Self.anchors("# Second factor (TOTP)\n```\n# not a heading\n```\n### Without LISTEN/NOTIFY\n## Password reset, verification, changes\n")
            == ["second-factor-totp", "without-listennotify", "password-reset-verification-changes"])
    }

    /// A user who clones the repository has nothing beside it: no file it ships names the
    /// folder of shared notes next to the checkout. (Tests and CI may use tools from there.)
    @Test func nothingPointsOutsideTheCheckout() throws {
        let places = [
            "README.md", "docs", "Sources", "Package.swift", "Makefile", "Dockerfile", "docker-compose.yml",
            "bench", "scripts", "Fuzz", "conformance", "Plugins", "Tools",
        ]
        let outside = ["../" + "shared", "/work/" + "shared"]
        var files = 0
        for place in places {
            let path = Self.root + "/" + place
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let relatives = isDirectory.boolValue
                ? (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).map { place + "/" + $0 } : [place]
            for relative in relatives {
                guard let text = try? String(contentsOfFile: Self.root + "/" + relative, encoding: .utf8) else { continue }
                files += 1
                for marker in outside where text.contains(marker) {
                    Issue.record("\(relative) names \(marker): say what it says in the repository's own words")
                }
            }
        }
        #expect(files > 100, "the scan reads the sources")
    }

    /// docs/development.md's architecture names every target the package declares (tests aside),
    /// so a target added or renamed shows up in the docs.
    @Test func architectureNamesEveryTarget() throws {
        let manifest = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
        let development = try String(contentsOfFile: Self.root + "/docs/development.md", encoding: .utf8)
        let declaration = try Regex(#"\.(target|executableTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)""#)
        let names = manifest.matches(of: declaration).compactMap { $0.output[2].substring.map(String.init) }
        #expect(names.count > 20, "the manifest's targets are found")
        for name in names {
            #expect(development.contains("`\(name)`"), "docs/development.md does not name the target \(name)")
        }
    }
}
