import Foundation
import JSON
import Postgres

/// Imports the users of a Firebase or Parse export (``ExportFormat``) into the users table.
///
/// Each record is read on its own: a malformed one, one that cannot be kept (a missing or
/// malformed id, an unknown kind of hash), or one that repeats an id, a log-in name (username or
/// email, ignoring case) or a provider id of an earlier record of the file is refused with its line
/// and reason, and the others are imported. Records are written in batches (``ImportStore``): a
/// user with its linked providers in one transaction; a user whose id is already there is
/// skipped, so running the same import again imports only what is missing.
public struct UserImporter: Sendable {
    /// What happened to one record.
    public enum Event: Sendable, Equatable {
        case imported(line: Int)
        case skipped(line: Int)
        case refused(line: Int, reason: String)
    }

    /// The counts of an import so far.
    public struct Summary: Sendable, Equatable {
        public var imported = 0
        public var skipped = 0
        public var refused = 0
        public var records: Int { imported + skipped + refused }

        public init(imported: Int = 0, skipped: Int = 0, refused: Int = 0) {
            self.imported = imported
            self.skipped = skipped
            self.refused = refused
        }
    }

    public let pool: Pool
    /// Records per transaction.
    public let batchSize: Int

    public init(pool: Pool, batchSize: Int = 2000) {
        precondition(batchSize > 0)
        self.pool = pool
        self.batchSize = batchSize
    }

    /// Imports the export in `bytes` (valid for the call), calling `event` for each record in
    /// order of its line and `progress` after each batch.
    ///
    /// - Throws: ``ExportReader/Failure`` when the file's structure breaks (the records before
    ///   it are imported), or a database error.
    @discardableResult
    public func run(
        _ bytes: UnsafeRawBufferPointer, format: ExportFormat,
        event: (Event) -> Void = { _ in }, progress: (Summary) -> Void = { _ in }
    ) throws -> Summary {
        var reader = ExportReader(bytes: bytes)
        let layout: ExportReader.Layout = switch format {
        case .firebase: .array(key: "users")
        case .parse: reader.parseLayout()
        }
        return try pool.withConnection { connection in
            let store = try ImportStore(connection: connection)
            var summary = Summary()
            var seen = FileIndex()
            var batch: [ImportRecord] = []
            // Records refused while reading, reported with the batch they were read beside.
            var refusedBeside: [Event] = []
            func refuse(_ line: Int, _ reason: String) {
                summary.refused += 1
                refusedBeside.append(.refused(line: line, reason: reason))
            }
            func flush() throws {
                let outcome = batch.isEmpty ? ImportStore.Outcome() : try store.importBatch(batch)
                batch.removeAll(keepingCapacity: true)
                var events = outcome.imported.map { Event.imported(line: $0) } + outcome.skipped.map { Event.skipped(line: $0) }
                events += outcome.refused.map { Event.refused(line: $0.line, reason: $0.reason) } + refusedBeside
                refusedBeside.removeAll()
                for item in events.sorted(by: { $0.line < $1.line }) { event(item) }
                summary.imported += outcome.imported.count
                summary.skipped += outcome.skipped.count
                summary.refused += outcome.refused.count
                progress(summary)
            }
            try reader.read(layout) { element in
                switch element {
                case .malformed(let line, let reason):
                    refuse(line, reason)
                case .record(let line, let json):
                    do {
                        let record = try format.record(json, line: line)
                        try seen.add(record)
                        batch.append(record)
                        if batch.count >= batchSize { try flush() }
                    } catch let refusal as ImportRefusal {
                        refuse(line, refusal.reason)
                    }
                }
            }
            try flush()
            return summary
        }
    }

    /// The ids, log-in names and provider ids of the records read so far, by line.
    private struct FileIndex {
        var ids: [String: Int] = [:]
        var names: [String: Int] = [:]
        var providers: [String: Int] = [:]

        /// Records `record`, or refuses it when it repeats an earlier record's id, name or provider id.
        mutating func add(_ record: ImportRecord) throws(ImportRefusal) {
            if let line = ids[record.objectId] { throw ImportRefusal("duplicate id \(record.objectId): also on line \(line)") }
            let names = Set([record.username.lowercased()] + (record.email.map { [$0.lowercased()] } ?? []))
            for name in names.sorted() {
                if let line = self.names[name] {
                    let field = name == record.email?.lowercased() ? "email" : "username"
                    throw ImportRefusal("duplicate \(field) \(name): also on line \(line)")
                }
            }
            let providerKeys = record.identities.map { "\($0.provider)\u{0}\($0.providerUserId)" }
            for (key, identity) in zip(providerKeys, record.identities) {
                if let line = providers[key] {
                    throw ImportRefusal("duplicate \(identity.provider) id: also on line \(line)")
                }
            }
            guard Set(record.identities.map(\.provider)).count == record.identities.count else {
                throw ImportRefusal("links one provider twice")
            }
            ids[record.objectId] = record.line
            for name in names { self.names[name] = record.line }
            for key in providerKeys { providers[key] = record.line }
        }
    }
}

extension UserImporter.Event {
    /// The line of the record.
    public var line: Int {
        switch self {
        case .imported(let line), .skipped(let line), .refused(let line, _): line
        }
    }
}
