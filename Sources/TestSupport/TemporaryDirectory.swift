import Foundation

/// Short, unique temporary directories (Unix socket paths must stay under 107 bytes).
public enum TemporaryDirectory {
    /// Creates `/tmp/<prefix>-<random>` and returns its path.
    public static func make(prefix: String) -> String {
        let path = "/tmp/\(prefix)-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
