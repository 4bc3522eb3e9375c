// PoolBench: the viewer lookup (session by token digest joined to its user) through our Pool at
// several thread counts, against pgbench running the same SQL on the same fresh embedded cluster.
// Run through bench/viewer-sql.sh. Prints a table; asserts nothing.
import Auth
import Foundation
import Postgres
import Synchronization

struct Options {
    var dataDirectory = "/tmp/gh-poolbench"
    var seconds = 10.0
    var levels = [1, 16, 64]
    var rows = 2000
    /// Pool connections per level; 0 means as many as threads.
    var poolSize = 0
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = arguments.next() {
        switch argument {
        case "--data-dir": options.dataDirectory = arguments.next()!
        case "--seconds": options.seconds = Double(arguments.next()!)!
        case "--levels": options.levels = arguments.next()!.split(separator: ",").map { Int($0)! }
        case "--rows": options.rows = Int(arguments.next()!)!
        case "--pool-size": options.poolSize = Int(arguments.next()!)!
        default:
            FileHandle.standardError.write(Data("usage: PoolBench [--data-dir DIR] [--seconds S] [--levels 1,16,64] [--rows N]\n".utf8))
            exit(2)
        }
    }
    return options
}


func seed(_ pool: Pool, rows: Int) throws -> [[UInt8]] {
    try Migrator(migrations: AuthMigrations.all).migrate(pool)
    return try pool.withConnection { c in
        try c.execute(
            """
            INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
            SELECT 'u' || lpad(g::text, 9, '0'), 'user' || g, 'user' || g || '@example.com',
                   '$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA', '{"*":{"read":true}}', now(), now()
            FROM generate_series(1, \(rows)) g
            """)
        try c.execute(
            """
            INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at, last_used_at)
            SELECT 's' || lpad(g::text, 9, '0'), sha256(int4send(g::int4)), 'u' || lpad(g::text, 9, '0'),
                   '{"action":"login","authProvider":"password"}', now() + interval '1 day', now(), now(), now()
            FROM generate_series(1, \(rows)) g
            """)
        try c.unsafeExecuteScript("VACUUM ANALYZE users")
        try c.unsafeExecuteScript("VACUUM ANALYZE sessions")
        return try c.query("SELECT token_digest FROM sessions ORDER BY object_id").map { try $0.decode([UInt8].self, at: 0) }
    }
}

/// Runs the lookup on `threads` threads through one pool of `threads` connections for `seconds`.
func runOurs(connectionString: String, threads: Int, poolSize: Int, seconds: Double, digests: [[UInt8]]) throws -> Double {
    let pool = Pool(configuration: PoolConfiguration(connectionString, size: poolSize, checkoutTimeoutSeconds: 30))
    defer { pool.close() }
    let total = Mutex(0)
    let failures = Mutex(0)
    let stop = Atomic<Bool>(false)
    let ready = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<threads {
        ready.enter()
        done.enter()
        Thread {
            var generator = SystemRandomNumberGenerator()
            var count = 0
            // Warm up: open this thread's connection and prepare the statement before timing.
            _ = try? pool.withConnection { c in try c.query(lookup(digests[index % digests.count])) }
            ready.leave()
            go.wait()
            while !stop.load(ordering: .relaxed) {
                let digest = digests[Int.random(in: 0..<digests.count, using: &generator)]
                do {
                    try pool.withConnection { c in
                        let result = try c.query(lookup(digest))
                        guard let row = result.first else { throw PostgresError(.usage, message: "no session") }
                        _ = try row.decode("object_id", as: String.self)
                        _ = try row.decode("expires_at", as: Date.self)
                        _ = try row.decode("username", as: String.self)
                    }
                    count += 1
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            total.withLock { $0 += count }
            done.leave()
        }.start()
    }
    ready.wait()
    let start = DispatchTime.now()
    for _ in 0..<threads { go.signal() }
    Thread.sleep(forTimeInterval: seconds)
    stop.store(true, ordering: .relaxed)
    done.wait()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    if failures.withLock({ $0 }) > 0 { print("  (ours: \(failures.withLock { $0 }) failed lookups at \(threads) threads)") }
    return Double(total.withLock { $0 }) / elapsed
}

func lookup(_ digest: [UInt8]) -> PostgresQuery {
    "SELECT s.object_id, s.expires_at, u.* FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = \(digest)"
}

/// pgbench with the same SQL, the digest drawn from the seeded set (digest i = sha256(int4send(i))).
func runPgbench(bin: String, cluster: EmbeddedPostgres, clients: Int, seconds: Double, rows: Int) throws -> (Double, Int) {
    let script = cluster.dataDirectory + "/viewer.pgbench"
    try """
        \\set i random(1, \(rows))
        SELECT s.object_id, s.expires_at, u.* FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = sha256(int4send(:i));

        """.write(toFile: script, atomically: true, encoding: .utf8)
    let jobs = min(clients, ProcessInfo.processInfo.activeProcessorCount)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: bin + "/pgbench")
    process.arguments = [
        "-n", "-M", "prepared", "-c", "\(clients)", "-j", "\(jobs)", "-T", "\(Int(seconds))", "-f", script,
        "-h", cluster.socketDirectory, "-p", "\(cluster.options.port)", "-U", cluster.options.user, cluster.options.databaseName,
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
        let tps = Double(line.dropFirst(6).split(separator: " ")[0])
    else {
        throw PostgresError(.usage, message: "pgbench failed: \(output)")
    }
    return (tps, jobs)
}

func pgBinDirectory() -> String {
    let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
        .compactMap(Double.init).sorted(by: >).map { "/usr/lib/postgresql/\(Int($0))/bin" }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/pgbench") } ?? "/usr/lib/postgresql/15/bin"
}

let options = parseOptions()
let cluster = try EmbeddedPostgres(options: .init(dataDirectory: options.dataDirectory, durable: false, maxConnections: 200))
try cluster.start()
defer { try? cluster.stop() }
do {
    let setup = Pool(cluster.connectionString, size: 1)
    let digests = try seed(setup, rows: options.rows)
    setup.close()
    print("seeded \(digests.count) users and sessions; \(Int(options.seconds)) s per level")
    var table: [(Int, Double, Double, Int)] = []
    for level in options.levels {
        let poolSize = options.poolSize > 0 ? min(level, options.poolSize) : level
        let ours = try runOurs(
            connectionString: cluster.connectionString, threads: level, poolSize: poolSize, seconds: options.seconds, digests: digests)
        let (theirs, jobs) = try runPgbench(bin: pgBinDirectory(), cluster: cluster, clients: level, seconds: options.seconds, rows: options.rows)
        table.append((level, ours, theirs, jobs))
        print(String(format: "  level %3d: ours %8.0f q/s, pgbench %8.0f q/s", level, ours, theirs))
    }
    print("")
    print("| level (threads = clients) | ours q/s | pgbench q/s (-M prepared, -j) | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    for (level, ours, theirs, jobs) in table {
        print(String(format: "| %d | %.0f | %.0f (-j %d) | %.2f |", level, ours, theirs, jobs, ours / theirs))
    }
} catch {
    print("PoolBench failed: \(error)")
    try? cluster.stop()
    exit(1)
}
