import Foundation
import JSON
import Postgres
import Sodium
import Signatures

/// The tamper-evident audit log (migration 24): every event of ``EventLog``, inserted in the
/// transaction of its change, then hash-chained in batches by a sealer.
///
/// A request only inserts its entries: it takes no lock and updates no shared row, so log-ins
/// never wait for each other here. Each entry gets a position from a sequence, drawn once its
/// transaction has an id. The sealer (``seal(batchSize:)``, one at a time across every instance,
/// holding `audit_head`'s row) hashes settled entries in position order: each entry's hash is
/// SHA-256 over the previous entry's hash and the entry's canonical form (``canonicalForm(_:)``),
/// and each batch's hashes are written as one seal, numbered in order, covering the positions
/// after the previous seal's up to its own last. `audit_head` holds the last seal, the chain's
/// last hash, and where pruning cut it.
///
/// When is a position settled? A position is drawn after its transaction's id; so once every
/// transaction whose id was given out before the sequence was read (all ids below that moment's
/// `xmax`) has ended, no entry at or below the position read can still appear. The sealer reads
/// the sequence and that `xmax` (the fence), and seals up to the fence once the oldest running
/// transaction is past it: within a second or so, later while a long transaction that writes runs.
public struct AuditLog: Sendable {
    /// Entries a seal holds at most.
    public static let sealSize = 1000

    public let pool: Pool

    public init(pool: Pool) {
        self.pool = pool
    }

    /// Inserts `events` (their entry ids `ids`) as `origin`'s, in order, in `tx`: sent with its
    /// `COMMIT`, so the entries cost the change no round trip of their own. One row of scalar
    /// parameters per entry (arrays cost a request more to encode than the row costs to insert);
    /// the origin's three are bound once and shared by every row.
    static func append(_ events: [AuthEvent], ids: [String], origin: AuditOrigin, in tx: Transaction) {
        guard !events.isEmpty else { return }
        var bindings = PostgresBindings(reservingCapacity: 3 + 6 * events.count, bytes: 256 + 320 * events.count)
        bindings.append(origin.actor.rawValue)
        bindings.append(origin.ip)
        bindings.append(origin.userAgent.map { String($0.prefix(Session.userAgentLimit)) })
        for (event, id) in zip(events, ids) {
            var sessionId = origin.sessionId
            if case .string(let named)? = event.data["sessionId"] { sessionId = named }
            bindings.append(id)
            bindings.append(event.time)
            bindings.append(event.kind.rawValue)
            bindings.append(event.userId)
            bindings.append(sessionId)
            bindings.append(JSON.object(event.deliveredData).serializedString())
        }
        tx.executeWithCommit(PostgresQuery(unsafeSQL: insertSQL(rows: events.count), bindings: bindings))
    }

    /// The insert of `rows` entries: `$1`–`$3` the origin's actor, address and user agent, then six
    /// parameters per row (id, time, type, user, session, data). Only numbers are written into it.
    static func insertSQL(rows: Int) -> String {
        if rows <= insertSQLs.count { return insertSQLs[rows - 1] }
        return makeInsertSQL(rows: rows)
    }

    private static let insertSQLs = (1...4).map(makeInsertSQL)

    private static func makeInsertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            let p = 4 + 6 * row
            return "($\(p), $\(p + 1), $\(p + 2), $1, $\(p + 3), $\(p + 4), $2, $3, $\(p + 5))"
        }
        return "INSERT INTO audit_entries (id, at, type, actor, user_id, session_id, ip, user_agent, data) VALUES "
            + values.joined(separator: ", ")
    }

    // MARK: Sealing

    /// One pass of the sealer: seals up to `batchSize` settled entries after the last seal (when
    /// the fence has passed), then sets a new fence when the old one is used up. Returns the
    /// entries sealed: 0 when none was settled, or when another process is sealing.
    @discardableResult
    public func seal(batchSize: Int = sealSize) throws -> Int {
        precondition(batchSize > 0)
        return try pool.withConnection { connection in
            try connection.transaction { tx -> Int in
                try Self.planForTheSizeNow(tx)
                guard let head = try tx.queryFirst("""
                    SELECT seq, last_pos, head, fence_pos,
                           fence_xid <= pg_snapshot_xmin(pg_current_snapshot()),
                           fence_xid > pg_snapshot_xmax(pg_current_snapshot())
                    FROM audit_head FOR UPDATE SKIP LOCKED
                    """)
                else { return 0 }
                let seq = try head.decode(Int64.self, at: 0)
                var lastPos = try head.decode(Int64.self, at: 1)
                let fencePos = try head.decode(Int64?.self, at: 3)
                let passed = try head.decode(Bool?.self, at: 4) ?? false
                // A fence from another cluster's ids (a database restored from a dump) is never
                // passed here: every entry it could wait for came with the dump, settled.
                let foreign = try head.decode(Bool?.self, at: 5) ?? false
                var sealed = 0
                if let fencePos, passed, fencePos > lastPos {
                    let rows = try tx.query("""
                        SELECT \(sql: Self.entryColumns) FROM audit_entries
                        WHERE pos > \(lastPos) AND pos <= \(fencePos) ORDER BY pos LIMIT \(batchSize)
                        """)
                    if !rows.isEmpty {
                        var previous = try head.decode([UInt8].self, at: 2)
                        var hashes: [UInt8] = []
                        hashes.reserveCapacity(32 * rows.count)
                        var newest = Date.distantPast
                        for row in rows {
                            previous = try Self.hash(row, after: previous)
                            hashes += previous
                            newest = max(newest, try row.decode(Date.self, at: Self.formColumns))
                        }
                        // A full batch ends at its last entry; the rest up to the fence is the next seal's.
                        lastPos = rows.count == batchSize ? try rows[rows.count - 1].decode(Int64.self, at: 0) : fencePos
                        try tx.execute("""
                            INSERT INTO audit_seals (seq, last_pos, hashes, newest) VALUES (\(seq + 1), \(lastPos), \(hashes), \(newest));
                            """)
                        try tx.execute("UPDATE audit_head SET seq = \(seq + 1), last_pos = \(lastPos), head = \(previous)")
                        sealed = rows.count
                    }
                }
                let usedUp = fencePos.map { passed && $0 <= lastPos } ?? true
                if usedUp || foreign || (passed && sealed == 0) {
                    // Read the sequence first; the next statement's snapshot is taken after it.
                    let drawn = try tx.queryFirst("SELECT \(sql: Self.lastDrawn)")?.decode(Int64.self, at: 0) ?? 0
                    if drawn > lastPos {
                        try tx.execute("UPDATE audit_head SET fence_pos = \(drawn), fence_xid = pg_snapshot_xmax(pg_current_snapshot())")
                    } else if fencePos != nil {
                        try tx.execute("UPDATE audit_head SET fence_pos = NULL, fence_xid = NULL")
                    }
                }
                return sealed
            }
        }
    }

    /// The last position the sequence gave out (0 before the first).
    static let lastDrawn: StaticString = "(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM audit_entries_pos_seq)"

    /// Runs sealing passes back to back while each fills a seal of `batchSize`: seals everything settled.
    /// Returns the entries sealed.
    @discardableResult
    public func sealSettled(batchSize: Int = sealSize) throws -> Int {
        var sealed = 0
        while true {
            let count = try seal(batchSize: batchSize)
            sealed += count
            if count < batchSize { return sealed }
        }
    }

    /// Plans `tx`'s statements afresh each time. The log's range reads would otherwise keep a
    /// plan made once per connection while the table was small (a scan of every entry, then a
    /// sort), until the table's next analyze: at a hundred thousand entries, each pass read them all.
    static func planForTheSizeNow(_ tx: Transaction) throws {
        try tx.execute("SET LOCAL plan_cache_mode = force_custom_plan")
    }

    /// Seals, `batchSize` entries per seal, until every entry committed before the call is
    /// sealed, or `timeout` passes (a transaction that writes and stays open holds the fence).
    /// Returns whether it got there.
    public func sealCommitted(batchSize: Int = sealSize, timeout: TimeInterval = 30) throws -> Bool {
        let target = try pool.withConnection { connection in
            try connection.queryFirst("SELECT \(sql: Self.lastDrawn)")?.decode(Int64.self, at: 0) ?? 0
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try sealSettled(batchSize: batchSize)
            let waiting = try pool.withConnection { connection in
                try connection.transaction { tx in
                    try Self.planForTheSizeNow(tx)
                    return try tx.queryFirst("""
                        SELECT EXISTS (SELECT 1 FROM audit_entries WHERE pos > (SELECT last_pos FROM audit_head) AND pos <= \(target))
                        """)?.decode(Bool.self, at: 0) ?? false
                }
            }
            if !waiting { return true }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    // MARK: Verifying

    /// The columns of an entry as the canonical form reads them (``canonicalForm(_:after:)``): its
    /// position, then each field, its time as PostgreSQL's `to_char(at AT TIME ZONE 'UTC',
    /// 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` writes it; then its time as a timestamp.
    static let entryColumns: StaticString = """
        pos, id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), type, actor, user_id, session_id, ip,
        user_agent, data, at
        """

    /// The columns of ``entryColumns`` the canonical form covers; the time as a timestamp follows them.
    static let formColumns = 10

    /// An entry's hash: SHA-256 over the previous entry's hash and the canonical form of the entry in `row`.
    static func hash(_ row: PostgresRow, after previous: [UInt8]) throws -> [UInt8] {
        SHA256.digest(try canonicalForm(row, after: previous))
    }

    /// The bytes an entry's hash covers after the previous hash (`prefix`, written first): a
    /// version tag, then its position and each field as its UTF-8 length, `:` and its text (`~`
    /// for NULL), so no two entries share a form and moving an entry changes its form. Read from
    /// `row`'s first ``formColumns`` columns (``entryColumns``) as the server sent them: the text
    /// fields' bytes go into the form as they are, with no `String` made of them.
    static func canonicalForm(_ row: PostgresRow, after prefix: [UInt8] = []) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prefix.count + 512)
        bytes += prefix
        bytes.append(contentsOf: "gatehouse-audit-2".utf8)
        var position = String(try row.decode(Int64.self, at: 0))
        position.withUTF8 { appendField(UnsafeRawBufferPointer($0), to: &bytes) }
        for column in 1..<formColumns {
            row.withBytes(at: column) { appendField($0, to: &bytes) }
        }
        return bytes
    }

    /// `field` as the canonical form writes it: its length in decimal, `:` and its bytes; `~` for NULL.
    private static func appendField(_ field: UnsafeRawBufferPointer?, to bytes: inout [UInt8]) {
        guard let field else {
            bytes.append(UInt8(ascii: "~"))
            return
        }
        var divisor = 1
        while divisor * 10 <= field.count { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(field.count / divisor % 10))
            divisor /= 10
        }
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: field)
    }

    /// What ``verify(batchSize:)`` found.
    public struct Verification: Sendable, Equatable {
        /// Entries checked.
        public var entries: Int
        /// Seals checked.
        public var seals: Int
        /// Entries not sealed yet (committed after the sealing that `verify` waited for, or held
        /// back by a long transaction): checked by a later run.
        public var pending: Int
        /// The first entry or seal that does not match, in chain order; nil: the log is intact.
        public var problem: Problem?
    }

    /// Where the chain stops matching.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The entry's hash is not its seal's: it, or an entry before it, was edited, deleted,
        /// inserted or moved.
        case entry(id: String, position: Int64, seal: Int64)
        /// A seal ends before its last hash: its last entries were deleted.
        case sealEnds(seal: Int64, missing: Int)
        /// A seal is missing, or its number is out of order.
        case seal(Int64)
        /// An entry at a position the log was cut after: inserted.
        case beforeCut(id: String, position: Int64)
        /// An entry past every position the sequence has given: inserted.
        case pastSequence(id: String, position: Int64)
        /// The seals do not end at the head: the last ones were deleted or changed.
        case head(seal: Int64)

        public var description: String {
            switch self {
            case .entry(let id, let position, let seal):
                "audit entry \(id) (position \(position), seal \(seal)) does not match its hash"
            case .sealEnds(let seal, let missing):
                "seal \(seal) ends \(missing) entries early: its last entries were deleted"
            case .seal(let seal):
                "seal \(seal) is missing or out of order"
            case .beforeCut(let id, let position):
                "audit entry \(id) (position \(position)) lies before the log's cut"
            case .pastSequence(let id, let position):
                "audit entry \(id) (position \(position)) lies past every position given out"
            case .head(let seal):
                "the seals do not end at the head (seal \(seal)): the last ones were deleted or changed"
            }
        }
    }

    /// Seals what was committed before the call (``sealCommitted(batchSize:timeout:)``), then walks every
    /// seal from the cut to the head in one snapshot (a repeatable-read transaction), reading up to
    /// `batchSize` seals per statement and each seal's entries in one; stops at the first problem.
    public func verify(batchSize: Int = 100, timeout: TimeInterval = 30) throws -> Verification {
        _ = try sealCommitted(timeout: timeout)
        return try pool.withConnection { connection in
            try connection.transaction { tx in
                try tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                try Self.planForTheSizeNow(tx)
                guard let head = try tx.queryFirst("SELECT seq, last_pos, head, cut_seq, cut_pos, cut_hash FROM audit_head") else {
                    return Verification(entries: 0, seals: 0, pending: 0, problem: .head(seal: 0))
                }
                let headSeq = try head.decode(Int64.self, at: 0)
                let headPos = try head.decode(Int64.self, at: 1)
                let headHash = try head.decode([UInt8].self, at: 2)
                var sealSeq = try head.decode(Int64.self, at: 3)
                var lastPos = try head.decode(Int64.self, at: 4)
                var previous = try head.decode([UInt8].self, at: 5)
                var result = Verification(entries: 0, seals: 0, pending: 0, problem: nil)
                result.pending = Int(try tx.queryFirst("SELECT count(*) FROM audit_entries WHERE pos > \(headPos)")?.decode(Int64.self, at: 0) ?? 0)
                if let early = try tx.queryFirst("SELECT id, pos FROM audit_entries WHERE pos <= \(lastPos) ORDER BY pos LIMIT 1") {
                    result.problem = .beforeCut(id: try early.decode(String.self, at: 0), position: try early.decode(Int64.self, at: 1))
                    return result
                }
                if let late = try tx.queryFirst("""
                    SELECT id, pos FROM audit_entries WHERE pos > \(sql: Self.lastDrawn) ORDER BY pos LIMIT 1
                    """) {
                    result.problem = .pastSequence(id: try late.decode(String.self, at: 0), position: try late.decode(Int64.self, at: 1))
                    return result
                }
                while true {
                    let seals = try tx.query("""
                        SELECT seq, last_pos, hashes FROM audit_seals WHERE seq > \(sealSeq) ORDER BY seq LIMIT \(batchSize)
                        """)
                    for seal in seals {
                        let seq = try seal.decode(Int64.self, at: 0)
                        let sealPos = try seal.decode(Int64.self, at: 1)
                        let hashes = try seal.decode([UInt8].self, at: 2)
                        guard seq == sealSeq + 1, hashes.count % 32 == 0, sealPos > lastPos else {
                            result.problem = .seal(sealSeq + 1)
                            return result
                        }
                        let count = hashes.count / 32
                        let rows = try tx.query("""
                            SELECT \(sql: Self.entryColumns) FROM audit_entries
                            WHERE pos > \(lastPos) AND pos <= \(sealPos) ORDER BY pos LIMIT \(count + 1)
                            """)
                        for (index, row) in rows.enumerated() {
                            let hash = try Self.hash(row, after: previous)
                            guard index < count, hash[...] == hashes[(32 * index)..<(32 * index + 32)] else {
                                result.problem = .entry(
                                    id: try row.decode(String.self, at: 1), position: try row.decode(Int64.self, at: 0), seal: seq)
                                return result
                            }
                            previous = hash
                            result.entries += 1
                        }
                        if rows.count < count {
                            result.problem = .sealEnds(seal: seq, missing: count - rows.count)
                            return result
                        }
                        sealSeq = seq
                        lastPos = sealPos
                        result.seals += 1
                    }
                    if seals.count < batchSize { break }
                }
                if sealSeq != headSeq || lastPos != headPos || previous != headHash { result.problem = .head(seal: headSeq) }
                return result
            }
        }
    }

    // MARK: Retention

    /// Deletes, seal by seal from the cut, the entries of each seal whose newest entry is older
    /// than `cutoff`, and records in the head where the chain was cut (the last seal removed, its
    /// last position and hash), so that ``verify(batchSize:timeout:)`` starts there. A seal goes
    /// whole or not at all (at most ``sealSize`` entries per transaction). Returns the entries deleted.
    @discardableResult
    public func prune(before cutoff: Date) throws -> Int {
        var deleted = 0
        while true {
            let count: Int64? = try pool.withConnection { connection in
                try connection.transaction { tx in
                    try tx.queryFirst("""
                        WITH head AS (SELECT cut_seq, cut_pos FROM audit_head FOR UPDATE),
                        doomed AS (
                            SELECT s.seq, s.last_pos, substring(s.hashes FROM length(s.hashes) - 31) AS last_hash, head.cut_pos
                            FROM audit_seals s, head WHERE s.seq = head.cut_seq + 1 AND s.newest < \(cutoff)
                        ), gone AS (
                            DELETE FROM audit_entries e USING doomed WHERE e.pos > doomed.cut_pos AND e.pos <= doomed.last_pos RETURNING 1
                        ), seal AS (
                            DELETE FROM audit_seals s USING doomed WHERE s.seq = doomed.seq RETURNING 1
                        ), cut AS (
                            UPDATE audit_head SET cut_seq = doomed.seq, cut_pos = doomed.last_pos, cut_hash = doomed.last_hash
                            FROM doomed RETURNING 1
                        )
                        SELECT (SELECT count(*) FROM gone)::bigint WHERE EXISTS (SELECT 1 FROM cut) AND EXISTS (SELECT 1 FROM seal)
                        """)?.decode(Int64.self, at: 0)
                }
            }
            guard let count else { return deleted }
            deleted += Int(count)
        }
    }

    // MARK: Reading

    /// An entry as `auditEvents` shows it.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var at: Date
        public var type: String
        public var actor: String
        public var userId: String?
        public var sessionId: String?
        public var ip: String?
        public var userAgent: String?
        /// The entry's `data`, as stored.
        public var data: JSON
        /// Where the entry sits in the newest-first order (``Position``): its time in
        /// microseconds since 1970 and its position, `:`-separated.
        public var cursor: String
    }

    /// `auditEvents`' filters.
    public struct Filter: Sendable, Equatable {
        public var userId: String?
        /// Types to keep; nil: every type.
        public var types: [String]?
        public var after: Date?
        public var before: Date?

        public init(userId: String? = nil, types: [String]? = nil, after: Date? = nil, before: Date? = nil) {
            self.userId = userId
            self.types = types
            self.after = after
            self.before = before
        }
    }

    /// Where an entry sits in the newest-first order: its time, then its position (a total order,
    /// stable as entries are added).
    public struct Position: Sendable, Equatable {
        public var micros: Int64
        public var pos: Int64

        /// The position written in `cursor` (``Entry/cursor``); nil when it is not one.
        public init?(_ cursor: String) {
            let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let micros = Int64(parts[0]), let pos = Int64(parts[1]) else { return nil }
            self.micros = micros
            self.pos = pos
        }
    }

    /// Up to `limit` entries matching `filter`, newest first, after `cursor`.
    public func entries(_ filter: Filter, limit: Int, after cursor: Position?) throws -> [Entry] {
        try pool.withConnection { connection in
            try connection.query("""
                SELECT id, at, type, actor, user_id, session_id, ip, user_agent, data, (extract(epoch FROM at) * 1000000)::bigint, pos
                FROM audit_entries
                WHERE (\(filter.userId)::text IS NULL OR user_id = \(filter.userId))
                  AND (\(filter.types.map { PostgresArray($0) })::text[] IS NULL OR type = ANY(\(filter.types.map { PostgresArray($0) })))
                  AND (\(filter.after)::timestamptz IS NULL OR at > \(filter.after))
                  AND (\(filter.before)::timestamptz IS NULL OR at < \(filter.before))
                  AND (\(cursor?.micros)::bigint IS NULL
                       OR (at, pos) < (timestamptz 'epoch' + \(cursor?.micros) * interval '1 microsecond', \(cursor?.pos)))
                ORDER BY at DESC, pos DESC LIMIT \(limit)
                """).map { row in
                let micros = try row.decode(Int64.self, at: 9)
                let pos = try row.decode(Int64.self, at: 10)
                return Entry(
                    id: try row.decode(String.self, at: 0), at: try row.decode(Date.self, at: 1), type: try row.decode(String.self, at: 2),
                    actor: try row.decode(String.self, at: 3), userId: try row.decode(String?.self, at: 4),
                    sessionId: try row.decode(String?.self, at: 5), ip: try row.decode(String?.self, at: 6),
                    userAgent: try row.decode(String?.self, at: 7),
                    data: (try? JSON.parse(try row.decode(String.self, at: 8))) ?? .null, cursor: "\(micros):\(pos)")
            }
        }
    }
}
