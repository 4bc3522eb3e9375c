import Foundation

/// Finds the PostgreSQL server binaries (`initdb`, `pg_ctl`, `postgres`).
enum PostgresBinaries {
    static let required = ["initdb", "pg_ctl", "postgres"]

    /// The directory holding the server binaries: `override`, else `pg_config --bindir`, else the
    /// highest version under `/usr/lib/postgresql/*/bin` (Debian's layout).
    static func locate(override: String?) throws(PostgresError) -> String {
        if let override {
            if hasServer(override) { return override }
            throw notFound("in \(override)")
        }
        var candidates: [String] = []
        if let bindir = pgConfigBindir() { candidates.append(bindir) }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { name -> (Double, String)? in Double(name).map { ($0, name) } }
            .sorted { $0.0 > $1.0 }
        candidates += versions.map { "\(root)/\($0.1)/bin" }
        if let found = candidates.first(where: hasServer) { return found }
        throw notFound("via `pg_config --bindir` or in /usr/lib/postgresql/*/bin")
    }

    private static func hasServer(_ directory: String) -> Bool {
        required.allSatisfy { FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)") }
    }

    private static func pgConfigBindir() -> String? {
        for path in ["/usr/bin/pg_config", "/usr/local/bin/pg_config"] where FileManager.default.isExecutableFile(atPath: path) {
            if let (status, output) = try? Subprocess.run(path, ["--bindir"], as: nil), status == 0 {
                return output
            }
        }
        return nil
    }

    private static func notFound(_ where_: String) -> PostgresError {
        PostgresError(
            .embedded,
            message: "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found \(where_); "
                + "install the Debian package `postgresql` (apt-get install postgresql), or set DATABASE_URL "
                + "to use an external server")
    }
}
