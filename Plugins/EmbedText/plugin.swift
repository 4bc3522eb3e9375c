import Foundation
import PackagePlugin

/// Compiles a text file of the repository into a target as a Swift string, so a deployed
/// binary needs no file beside it and holds exactly the committed text. Rebuilt whenever the
/// file changes. Each target that uses the plugin has one entry in `files`.
@main
struct EmbedText: BuildToolPlugin {
    /// By target: the file (from the package root), the Swift name it gets, its doc comment.
    static let files: [String: (path: String, name: String, summary: String)] = [
        "AuthGraphQL": (
            "schema.graphql", "ServedSchema.sdl",
            "The contract the server serves: the exact text of `schema.graphql`, compiled in."),
        "Auth": (
            "Sources/Auth/Policy/CommonPasswords/common-passwords.txt", "CommonPasswordList.text",
            "The 120,000 most common passwords (SecLists), one a line (MIT licence: see CommonPasswords/LICENSE)."),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let file = Self.files[target.name] else {
            throw PluginError("EmbedText has no file for target \(target.name); add one to EmbedText.files.")
        }
        let input = context.package.directoryURL.appending(path: file.path)
        let output = context.pluginWorkDirectoryURL.appending(path: file.name.split(separator: ".")[0] + ".swift")
        return [
            .buildCommand(
                displayName: "Embedding \(file.path)",
                executable: try context.tool(named: "TextEmbedder").url,
                arguments: [input.path, output.path, file.name, file.summary],
                inputFiles: [input],
                outputFiles: [output]),
        ]
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
