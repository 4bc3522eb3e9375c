import Foundation

/// Short, unique, new temporary directories (Unix socket paths must stay under 107 bytes).
public enum TemporaryDirectory {
    /// Creates `/tmp/<prefix>-<random>` (mkdtemp: never an existing directory) and returns its path.
    /// Mode 0755, as `mkdir` would make it: the `gatehouse` account, which runs the embedded
    /// clusters of a root test process and the `gatehouse` binary after it gives root up, must reach it.
    public static func make(prefix: String) -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else { fatalError("mkdtemp in /tmp: errno \(errno)") }
        chmod(path, 0o755)
        return String(cString: path)
    }

    /// ``make(prefix:)`` as a file URL.
    public static func url(prefix: String) -> URL {
        URL(fileURLWithPath: make(prefix: prefix), isDirectory: true)
    }
}
