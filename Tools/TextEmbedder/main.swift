// TextEmbedder INPUT OUTPUT ENUM.PROPERTY SUMMARY: writes a Swift file declaring
// `public enum ENUM { public static let PROPERTY }` with the exact text of INPUT and SUMMARY as
// its doc comment (the EmbedText build plugin runs it).
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5, let text = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: TextEmbedder INPUT OUTPUT ENUM.PROPERTY SUMMARY (INPUT must be readable UTF-8)\n".utf8))
    exit(2)
}
let name = arguments[3].split(separator: ".")
guard name.count == 2 else {
    FileHandle.standardError.write(Data("TextEmbedder: the name must be ENUM.PROPERTY, not \(arguments[3])\n".utf8))
    exit(2)
}
let input = URL(fileURLWithPath: arguments[1]).lastPathComponent
// A multi-line raw string with more #s than any `"` + #s run in the text, so any text fits.
// Its content is exactly `text`: the line break before the closing delimiter is not part
// of a multi-line string, hence the one added after `text`.
var hashes = "#"
while text.contains("\"" + hashes) { hashes += "#" }
let output = """
    // Generated from \(input) by the EmbedText build plugin.

    public enum \(name[0]) {
        /// \(arguments[4])
        public static let \(name[1]) = \(hashes)\"\"\"

    """ + text + "\n\"\"\"" + hashes + "\n}\n"
do {
    try output.write(toFile: arguments[2], atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("TextEmbedder: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(1)
}
