import Foundation
import JSON
import Postgres
import Sodium

/// The tamper-evident audit log (migration 17): every event of ``EventLog``, appended in the
/// transaction of its change, in ``chains`` hash chains.
///
/// A user's entries are always in the chain of its id (``chain(of:)``), so one user's history is
/// one ordered chain, and log-ins of different users rarely wait for the same head row: appending
/// locks only its chain's head until the transaction ends. A failed log-in with a name no account
/// has goes to the chain of that name (so attempts on one name wait alike whether or not it
/// exists); other entries of no user go to a chain drawn from their random id. Each entry's hash is SHA-256 over the previous entry's hash and the
/// entry's canonical form (``canonicalForm(_:)``, the same as the database's
/// `gatehouse_audit_canonical`); each head row holds its chain's last sequence number and hash,
/// and where pruning cut it. ``verify(batchSize:)`` walks every chain and checks each head.
public struct AuditLog: Sendable {
    /// The number of chains (the rows of `audit_chains` made by migration 17).
    public static let chains = 64

    public let pool: Pool

    public init(pool: Pool) {
        self.pool = pool
    }

    /// The chain of `userId`'s entries: FNV-1a of its UTF-8 bytes, so every instance agrees.
    static func chain(of userId: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in userId.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int32(hash % UInt32(chains))
    }

    /// The chain of `event`'s entry: its user's, else its chain key's, else one drawn from its random id.
    static func chain(of event: AuthEvent, entryId: String) -> Int32 {
        chain(of: event.userId ?? event.chainKey ?? entryId)
    }

    /// Appends `events` (their entry ids `ids`) as `origin`'s, in `tx`. A call's entries lock
    /// their chains' heads in chain order, so two transactions never wait for each other's heads
    /// in opposite orders; within a chain they keep their order.
    ///
    /// Each entry's canonical form after its sequence number (``canonicalBody(_:)``) is written
    /// here and sent with its fields: the database adds the tag, the chain and the sequence number,
    /// which it knows only once it holds the head, and hashes onto the head
    /// (`gatehouse_audit_append_forms`, migration 22). A time whose text only the database
    /// writes alike (``canonicalTime(_:)`` is nil) sends the call to `gatehouse_audit_append`,
    /// which builds each whole form itself; both store the same hashes.
    static func append(_ events: [AuthEvent], ids: [String], origin: AuditOrigin, in tx: some PostgresQueryable) throws {
        guard !events.isEmpty else { return }
        let shards = zip(events, ids).map { chain(of: $0, entryId: $1) }
        let order = shards.indices.sorted { (shards[$0], $0) < (shards[$1], $1) }
        let userAgent = origin.userAgent.map { String($0.prefix(Session.userAgentLimit)) }
        var sessionIds: [String?] = []
        var data: [String] = []
        var forms: [[UInt8]] = []
        var formed = true
        for index in order {
            let event = events[index]
            var sessionId = origin.sessionId
            if case .string(let id)? = event.data["sessionId"] { sessionId = id }
            sessionIds.append(sessionId)
            let text = JSON.object(event.deliveredData).serializedString()
            data.append(text)
            guard formed, let at = canonicalTime(event.time) else {
                formed = false
                continue
            }
            forms.append(canonicalBody(Body(
                id: ids[index], at: at, type: event.kind.rawValue, actor: origin.actor.rawValue, userId: event.userId,
                sessionId: sessionId, ip: origin.ip, userAgent: userAgent, data: text)))
        }
        if formed {
            try tx.execute("""
                SELECT gatehouse_audit_append_forms(
                    \(PostgresArray(order.map { shards[$0] })), \(PostgresArray(order.map { ids[$0] })),
                    \(PostgresArray(order.map { events[$0].time })), \(PostgresArray(order.map { events[$0].kind.rawValue })),
                    \(PostgresArray(order.map { events[$0].userId })), \(PostgresArray(sessionIds)), \(PostgresArray(data)),
                    \(PostgresArray(forms)), \(origin.actor.rawValue), \(origin.ip), \(userAgent))
                """)
            return
        }
        try tx.execute("""
            SELECT gatehouse_audit_append(
                \(PostgresArray(order.map { shards[$0] })), \(PostgresArray(order.map { ids[$0] })),
                \(PostgresArray(order.map { events[$0].time })), \(PostgresArray(order.map { events[$0].kind.rawValue })),
                \(PostgresArray(order.map { _ in origin.actor.rawValue })), \(PostgresArray(order.map { events[$0].userId })),
                \(PostgresArray(sessionIds)), \(PostgresArray(order.map { _ in origin.ip })),
                \(PostgresArray(order.map { _ in userAgent })), \(PostgresArray(data)))
            """)
    }

    // MARK: Verifying

    /// One entry as stored, with its time as the canonical form writes it.
    struct StoredEntry {
        var shard: Int32
        var seq: Int64
        var body: Body
        var hash: [UInt8]

        /// The entry from twelve columns of `row` from `first` on: shard, seq, id, at (as the
        /// canonical form writes it), type, actor, user_id, session_id, ip, user_agent, data, hash.
        init(_ row: PostgresRow, from first: Int = 0) throws {
            shard = try row.decode(Int32.self, at: first)
            seq = try row.decode(Int64.self, at: first + 1)
            body = Body(
                id: try row.decode(String.self, at: first + 2), at: try row.decode(String.self, at: first + 3),
                type: try row.decode(String.self, at: first + 4), actor: try row.decode(String.self, at: first + 5),
                userId: try row.decode(String?.self, at: first + 6), sessionId: try row.decode(String?.self, at: first + 7),
                ip: try row.decode(String?.self, at: first + 8), userAgent: try row.decode(String?.self, at: first + 9),
                data: try row.decode(String.self, at: first + 10))
            hash = try row.decode([UInt8].self, at: first + 11)
        }
    }

    /// The bytes an entry's hash covers after the previous hash: a version tag, then each field
    /// as its UTF-8 length, `:` and its text (`~` for NULL).
    static func canonicalForm(_ entry: StoredEntry) -> [UInt8] {
        var bytes = Array("gatehouse-audit-1".utf8)
        appendField(String(entry.shard), to: &bytes)
        appendField(String(entry.seq), to: &bytes)
        return bytes + canonicalBody(entry.body)
    }

    /// The fields of an entry after its chain and sequence number, `at` as the canonical form writes it.
    struct Body {
        var id: String
        var at: String?
        var type: String
        var actor: String
        var userId: String?
        var sessionId: String?
        var ip: String?
        var userAgent: String?
        var data: String
    }

    /// The canonical form's bytes after the sequence number: every field of `body` as
    /// ``canonicalForm(_:)`` writes it.
    static func canonicalBody(_ body: Body) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            128 + body.id.utf8.count + body.data.utf8.count + (body.userAgent?.utf8.count ?? 0) + (body.ip?.utf8.count ?? 0))
        appendField(body.id, to: &bytes)
        appendField(body.at, to: &bytes)
        appendField(body.type, to: &bytes)
        appendField(body.actor, to: &bytes)
        appendField(body.userId, to: &bytes)
        appendField(body.sessionId, to: &bytes)
        appendField(body.ip, to: &bytes)
        appendField(body.userAgent, to: &bytes)
        appendField(body.data, to: &bytes)
        return bytes
    }

    /// `field` as the canonical form writes it: its UTF-8 length in decimal, `:` and its bytes; `~` for NULL.
    private static func appendField(_ field: String?, to bytes: inout [UInt8]) {
        guard var field else {
            bytes.append(UInt8(ascii: "~"))
            return
        }
        field.withUTF8 { utf8 in
            var divisor = 1
            while divisor * 10 <= utf8.count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(utf8.count / divisor % 10))
                divisor /= 10
            }
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: utf8)
        }
    }

    /// `time`'s `at` text in the canonical form, as PostgreSQL's `to_char(at AT TIME ZONE 'UTC',
    /// 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` writes the value stored (to the millisecond), for the
    /// years 1 to 9999; nil outside them, where only the database's text is the canonical one.
    static func canonicalTime(_ time: Date) -> String? {
        guard let milliseconds = time.postgresMilliseconds, (minimumFormedTime..<maximumFormedTime).contains(milliseconds) else {
            return nil
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ISO8601.fixedLength + 3) { out in
            // `YYYY-MM-DDTHH:MM:SS.mmmZ`, then microseconds: the stored time has none beyond the milliseconds.
            guard ISO8601.write(milliseconds: milliseconds, into: out.baseAddress!) else { return nil }
            for i in 23..<26 { out[i] = UInt8(ascii: "0") }
            out[26] = UInt8(ascii: "Z")
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in milliseconds since 1970.
    private static let minimumFormedTime: Int64 = -62_135_596_800_000
    private static let maximumFormedTime: Int64 = 253_402_300_800_000

    /// What ``verify(batchSize:)`` found.
    public struct Verification: Sendable, Equatable {
        /// Entries checked.
        public var entries: Int
        /// The first entry that does not match, in chain order; nil: the log is intact.
        public var problem: Problem?
    }

    /// Where a chain stops matching.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The entry's stored hash is not the hash of the previous entry and its own fields: it,
        /// or an entry before it, was edited, deleted, inserted or moved.
        case entry(id: String, chain: Int, sequence: Int64)
        /// An entry past the chain's head: inserted.
        case pastHead(id: String, chain: Int, sequence: Int64)
        /// The chain ends before its head, or its last hash is not the head's: its last entries
        /// were deleted or edited.
        case head(chain: Int, sequence: Int64)

        public var description: String {
            switch self {
            case .entry(let id, let chain, let sequence):
                "audit entry \(id) (chain \(chain), sequence \(sequence)) does not match its hash"
            case .pastHead(let id, let chain, let sequence):
                "audit entry \(id) (chain \(chain), sequence \(sequence)) lies past its chain's head"
            case .head(let chain, let sequence):
                "chain \(chain) does not end at its head (sequence \(sequence)): its last entries were deleted or changed"
            }
        }
    }

    /// Walks every chain from its cut to its head, each in one snapshot (a repeatable-read
    /// transaction, so entries committed meanwhile are not half seen), reading `batchSize` entries
    /// per statement; stops at the first problem.
    public func verify(batchSize: Int = 1000) throws -> Verification {
        var checked = 0
        for shard in 0..<Int32(Self.chains) {
            let problem: Problem? = try pool.withConnection { connection in
                try connection.transaction { tx in
                    try tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    guard let head = try tx.queryFirst(
                        "SELECT seq, head, cut_seq, cut_hash FROM audit_chains WHERE shard = \(shard)")
                    else { return .head(chain: Int(shard), sequence: 0) }
                    let headSeq = try head.decode(Int64.self, at: 0)
                    let headHash = try head.decode([UInt8].self, at: 1)
                    var lastSeq = try head.decode(Int64.self, at: 2)
                    var previous = try head.decode([UInt8].self, at: 3)
                    var after: Int64 = .min
                    while true {
                        let rows = try tx.query("""
                            SELECT shard, seq, id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), type, actor,
                                   user_id, session_id, ip, user_agent, data, hash
                            FROM audit_log WHERE shard = \(shard) AND seq > \(after) ORDER BY seq LIMIT \(batchSize)
                            """)
                        for row in rows {
                            let entry = try StoredEntry(row)
                            after = entry.seq
                            checked += 1
                            if entry.seq > headSeq { return .pastHead(id: entry.body.id, chain: Int(shard), sequence: entry.seq) }
                            guard entry.seq == lastSeq + 1, SHA256.digest(previous + Self.canonicalForm(entry)) == entry.hash else {
                                return .entry(id: entry.body.id, chain: Int(shard), sequence: entry.seq)
                            }
                            lastSeq = entry.seq
                            previous = entry.hash
                        }
                        if rows.count < batchSize { break }
                    }
                    return lastSeq == headSeq && previous == headHash ? nil : .head(chain: Int(shard), sequence: headSeq)
                }
            }
            if let problem { return Verification(entries: checked, problem: problem) }
        }
        return Verification(entries: checked, problem: nil)
    }

    // MARK: Retention

    /// Deletes the entries older than `cutoff` from the start of every chain, at most
    /// `batchSize` per statement, and records in each head where the chain was cut (the last
    /// deleted entry's sequence and hash), so that ``verify(batchSize:)`` starts there. A chain
    /// is cut only up to its first entry not older than `cutoff`. Returns the entries deleted.
    @discardableResult
    public func prune(before cutoff: Date, batchSize: Int = 1000) throws -> Int {
        precondition(batchSize > 0)
        var deleted = 0
        for shard in 0..<Int32(Self.chains) {
            while true {
                let count = try pool.withConnection { connection in
                    try connection.transaction { tx in
                        try tx.queryFirst("""
                            WITH chain AS (SELECT shard FROM audit_chains WHERE shard = \(shard) FOR UPDATE),
                            oldest AS (
                                SELECT l.seq, l.at, l.hash FROM audit_log l, chain
                                WHERE l.shard = chain.shard ORDER BY l.seq LIMIT \(batchSize)
                            ), doomed AS (
                                SELECT seq, hash FROM (
                                    SELECT seq, hash, bool_and(at < \(cutoff)) OVER (ORDER BY seq) AS old FROM oldest
                                ) o WHERE old
                            ), gone AS (
                                DELETE FROM audit_log l USING doomed WHERE l.shard = \(shard) AND l.seq = doomed.seq RETURNING l.seq
                            ), cut AS (
                                UPDATE audit_chains c SET cut_seq = d.seq, cut_hash = d.hash
                                FROM (SELECT seq, hash FROM doomed ORDER BY seq DESC LIMIT 1) d
                                WHERE c.shard = \(shard) RETURNING 1
                            )
                            SELECT (SELECT count(*) FROM gone)::bigint, (SELECT count(*) FROM cut)::bigint
                            """)?.decode(Int64.self, at: 0) ?? 0
                    }
                }
                deleted += Int(count)
                if count < batchSize { break }
            }
        }
        return deleted
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
        /// microseconds since 1970, its chain and its sequence, `:`-separated.
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

    /// Where an entry sits in the newest-first order: its time, then its chain and sequence
    /// (a total order in which a chain's entries keep theirs, stable as entries are added).
    public struct Position: Sendable, Equatable {
        public var micros: Int64
        public var shard: Int32
        public var seq: Int64

        /// The position written in `cursor` (``Entry/cursor``); nil when it is not one.
        public init?(_ cursor: String) {
            let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, let micros = Int64(parts[0]), let shard = Int32(parts[1]), let seq = Int64(parts[2]) else { return nil }
            self.micros = micros
            self.shard = shard
            self.seq = seq
        }
    }

    /// Up to `limit` entries matching `filter`, newest first, after `cursor`.
    public func entries(_ filter: Filter, limit: Int, after cursor: Position?) throws -> [Entry] {
        try pool.withConnection { connection in
            try connection.query("""
                SELECT id, at, type, actor, user_id, session_id, ip, user_agent, data,
                       (extract(epoch FROM at) * 1000000)::bigint, shard, seq
                FROM audit_log
                WHERE (\(filter.userId)::text IS NULL OR user_id = \(filter.userId))
                  AND (\(filter.types.map { PostgresArray($0) })::text[] IS NULL OR type = ANY(\(filter.types.map { PostgresArray($0) })))
                  AND (\(filter.after)::timestamptz IS NULL OR at > \(filter.after))
                  AND (\(filter.before)::timestamptz IS NULL OR at < \(filter.before))
                  AND (\(cursor?.micros)::bigint IS NULL
                       OR (at, shard, seq) < (timestamptz 'epoch' + \(cursor?.micros) * interval '1 microsecond', \(cursor?.shard), \(cursor?.seq)))
                ORDER BY at DESC, shard DESC, seq DESC LIMIT \(limit)
                """).map { row in
                let micros = try row.decode(Int64.self, at: 9)
                let shard = try row.decode(Int32.self, at: 10)
                let seq = try row.decode(Int64.self, at: 11)
                let id = try row.decode(String.self, at: 0)
                return Entry(
                    id: id, at: try row.decode(Date.self, at: 1), type: try row.decode(String.self, at: 2),
                    actor: try row.decode(String.self, at: 3), userId: try row.decode(String?.self, at: 4),
                    sessionId: try row.decode(String?.self, at: 5), ip: try row.decode(String?.self, at: 6),
                    userAgent: try row.decode(String?.self, at: 7),
                    data: (try? JSON.parse(try row.decode(String.self, at: 8))) ?? .null, cursor: "\(micros):\(shard):\(seq)")
            }
        }
    }
}
