// SchemaEmbedder INPUT OUTPUT: writes a Swift file declaring `ServedSchema.sdl` with the
// exact text of INPUT (the EmbedSchema build plugin runs it on schema.graphql).
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, let text = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: SchemaEmbedder INPUT OUTPUT (INPUT must be readable UTF-8)\n".utf8))
    exit(2)
}
// A multi-line raw string with more #s than any `"` + #s run in the text, so any text fits.
// Its content is exactly `text`: the line break before the closing delimiter is not part
// of a multi-line string, hence the one added after `text`.
var hashes = "#"
while text.contains("\"" + hashes) { hashes += "#" }
let output = """
    // Generated from schema.graphql by the EmbedSchema build plugin.

    /// The contract the server serves: the exact text of `schema.graphql`, compiled in.
    public enum ServedSchema {
        public static let sdl = \(hashes)\"\"\"

    """ + text + "\n\"\"\"" + hashes + "\n}\n"
do {
    try output.write(toFile: arguments[2], atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("SchemaEmbedder: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(1)
}
