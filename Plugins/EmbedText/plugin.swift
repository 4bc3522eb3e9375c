import Foundation
import PackagePlugin

/// Compiles the repository's `schema.graphql` into the target as a Swift string
/// (`ServedSchema.sdl`), so the binary serves exactly the contract file and needs no
/// file beside it. Rebuilt whenever schema.graphql changes.
@main
struct EmbedSchema: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "schema.graphql")
        let output = context.pluginWorkDirectoryURL.appending(path: "ServedSchema.swift")
        return [
            .buildCommand(
                displayName: "Embedding schema.graphql",
                executable: try context.tool(named: "SchemaEmbedder").url,
                arguments: [input.path, output.path],
                inputFiles: [input],
                outputFiles: [output]),
        ]
    }
}
