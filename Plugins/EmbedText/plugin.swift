import Foundation
import PackagePlugin

/// Compiles text files of the repository into a target as Swift strings, so a deployed binary
/// needs no file beside it and holds exactly the committed text. A target gets one enum with
/// one `static let` per file; the build runs again whenever one of the files changes.
///
/// Each target that uses the plugin has one entry in `embeddings`: either one file, or every
/// file of a folder whose name ends in one of the listed extensions (a file added there is
/// picked up by the next build). A folder's file is named after its path inside the folder:
/// the runs of letters and digits, joined in lower camel case (`app.html` is `appHtml`,
/// `text/en.json` is `textEnJson`).
@main
struct EmbedText: BuildToolPlugin {
    /// What one target embeds: the enum's name, access and doc comment, and its files.
    struct Embedding {
        let enumName: String
        /// `public` when another target reads it, else `internal`.
        let access: String
        let summary: String
        let source: Source
    }

    enum Source {
        /// One file (from the package root), as the property `property`.
        case file(String, property: String)
        /// Every file under a folder (from the package root) with one of the extensions.
        case folder(String, extensions: Set<String>)
    }

    static let embeddings: [String: Embedding] = [
        "AuthGraphQL": Embedding(
            enumName: "ServedSchema", access: "public",
            summary: "The contract the server serves: the exact text of `schema.graphql`, compiled in.",
            source: .file("schema.graphql", property: "sdl")),
        "Auth": Embedding(
            enumName: "CommonPasswordList", access: "public",
            summary: "The 120,000 most common passwords (SecLists), one a line (MIT licence: see CommonPasswords/LICENSE).",
            source: .file("Sources/Auth/Policy/CommonPasswords/common-passwords.txt", property: "text")),
        "Mail": Embedding(
            enumName: "MailHTML", access: "internal",
            summary: "The markup of the mail's HTML part (filled in by MailComposer).",
            source: .folder("Sources/Mail/HTML", extensions: ["html"])),
        "GatehouseServer": Embedding(
            enumName: "PageFiles", access: "internal",
            summary: "The browser pages' HTML, CSS, JavaScript, texts and icon (see Pages/README.md).",
            source: .folder("Sources/GatehouseServer/Pages", extensions: ["html", "css", "js", "json", "svg"])),
        "EmbedTextTests": Embedding(
            enumName: "EmbeddedFixtures", access: "internal",
            summary: "The files of Fixtures/, to check that embedding keeps every character.",
            source: .folder("Tests/EmbedTextTests/Fixtures", extensions: ["txt", "js"])),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let embedding = Self.embeddings[target.name] else {
            throw PluginError("EmbedText has nothing to embed in target \(target.name); add it to EmbedText.embeddings.")
        }
        let root = context.package.directoryURL
        let files: [(property: String, path: String)]
        switch embedding.source {
        case .file(let path, let property):
            files = [(property, path)]
        case .folder(let folder, let extensions):
            let paths = try Self.files(in: root.appending(path: folder), extensions: extensions)
            guard !paths.isEmpty else {
                throw PluginError("EmbedText found no .\(extensions.sorted().joined(separator: ", .")) file in \(folder).")
            }
            files = try Self.properties(of: paths, folder: folder)
        }
        let output = context.pluginWorkDirectoryURL.appending(path: embedding.enumName + ".swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count == 1 ? files[0].path : "\(files.count) files") in \(embedding.enumName)",
                executable: try context.tool(named: "TextEmbedder").url,
                arguments: [root.path, output.path, embedding.access, embedding.enumName, embedding.summary]
                    + files.map { "\($0.property)=\($0.path)" },
                inputFiles: files.map { root.appending(path: $0.path) },
                outputFiles: [output]),
        ]
    }

    /// The paths inside `folder` of its files with one of `extensions`, sorted; hidden files skipped.
    static func files(in folder: URL, extensions: Set<String>) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { throw PluginError("EmbedText cannot read the folder \(folder.path).") }
        let base = folder.standardizedFileURL.pathComponents
        var paths: [String] = []
        for case let url as URL in enumerator where extensions.contains(url.pathExtension) {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            paths.append(url.standardizedFileURL.pathComponents.dropFirst(base.count).joined(separator: "/"))
        }
        return paths.sorted()
    }

    /// Each file's property name (see the type's doc) and its path from the package root.
    static func properties(of paths: [String], folder: String) throws -> [(property: String, path: String)] {
        var seen: [String: String] = [:]
        return try paths.map { path in
            let words = path.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard let first = words.first, !first.first!.isNumber else {
                throw PluginError("EmbedText cannot name \(folder)/\(path): a file's name must start with a letter.")
            }
            let property = first.prefix(1).lowercased() + first.dropFirst()
                + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            if let other = seen.updateValue(path, forKey: property) {
                throw PluginError("EmbedText would name both \(folder)/\(other) and \(folder)/\(path) \(property); rename one.")
            }
            return (property, folder + "/" + path)
        }
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
