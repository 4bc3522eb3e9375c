public import Foundation
public import JWT
public import Postgres
public import Sodium
import Signatures
import JSON
import Threading

/// The keys that sign access tokens, as this instance holds them: read from the database
/// (``refresh()``), with their private halves opened, the one that signs now (``signer()``) and
/// the key set verifiers fetch (``published``), both answered from memory. Refreshing also does the
/// schedule's work (``SigningKeySchedule``): it makes the first key, a replacement when rotation
/// is due, and deletes keys whose tokens have all expired. Any instance may do this work at the
/// same moment as another; the store lets one of them in.
///
/// `gatehouse keys rotate|list|revoke` use the same methods on their own instance.
public final class SigningKeys: Sendable {
    /// A key set document and what it says, made once per change.
    public final class Published: Sendable {
        /// `{"keys": [...]}`, the public halves of the published keys in schedule order.
        public let keySet: [UInt8]
        /// The algorithms of those keys, each once, in that order.
        public let algorithms: [SigningAlgorithm]
        /// The published keys by `kid`.
        let verifiers: [String: JSONWebKey]

        init(_ keys: [JSONWebSigningKey]) {
            keySet = JSON.object(["keys": .array(keys.map { .object($0.publicKey.json) })]).serialized()
            var algorithms: [SigningAlgorithm] = []
            for key in keys where !algorithms.contains(key.algorithm) { algorithms.append(key.algorithm) }
            self.algorithms = algorithms
            verifiers = Dictionary(keys.map { ($0.keyId, $0.publicKey) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// What went wrong beside the database: no secret key to seal with, a key that cannot be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// What one ``refresh()`` did, for the log.
    public struct Report: Sendable, Equatable {
        /// Keys this instance made (the first, or a replacement).
        public var made: [SigningKeySchedule.Key] = []
        /// Keys deleted because every token they signed has expired.
        public var deleted: [String] = []
        /// Keys whose private half could not be opened, newly met: sealed under another
        /// `GATEHOUSE_SECRET_KEY`, or damaged. They neither sign nor are published here.
        public var unreadable: [String] = []
    }

    private struct State {
        var schedule = SigningKeySchedule([])
        /// Opened keys by `kid`.
        var opened: [String: JSONWebSigningKey] = [:]
        var published = Published([])
        var unreadable: Set<String> = []
    }

    let store: SigningKeyStore
    /// Seals and opens the private halves (purpose `signingKeys`); nil: no key can be made or opened.
    let box: SecretBox?
    let policy: AccessTokenPolicy
    let now: @Sendable () -> Date
    private let state = Lock(State())

    /// The keys in `pool`, sealed with `box`, made for `policy`'s algorithm and rotated after its
    /// days; `now` is the schedule's clock.
    public init(pool: Pool, box: SecretBox?, policy: AccessTokenPolicy, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = SigningKeyStore(pool: pool)
        self.box = box
        self.policy = policy
        self.now = now
    }

    /// The current key set document (as of the last refresh).
    public var published: Published { state.withLock { $0.published } }

    /// The key that signs now; nil when none could be opened (or before the first refresh).
    func signer() -> JSONWebSigningKey? {
        let time = timestamp()
        return state.withLock { state in
            state.schedule.signer(at: time).flatMap { state.opened[$0.keyId] }
        }
    }

    /// The published key `keyId`, to verify a token this server signed.
    func verifier(keyId: String) -> JSONWebKey? {
        state.withLock { $0.published.verifiers[keyId] }
    }

    /// Reads the keys and brings them up to date: the first key when there is none, a replacement
    /// when rotation is due (``SigningKeySchedule/dueAddition(at:rotationDays:algorithm:)``), ended
    /// keys deleted; then opens the new ones and publishes the set. Blocks on the database.
    @discardableResult
    public func refresh() throws -> Report {
        var report = Report()
        var rows = try store.all()
        let time = timestamp()
        var schedule = SigningKeySchedule(rows.map(\.key))
        if let addition = schedule.dueAddition(at: time, rotationDays: policy.rotationDays, algorithm: policy.algorithm) {
            if let made = try add(addition, at: time) { report.made.append(made) }
            rows = try store.all()
            schedule = SigningKeySchedule(rows.map(\.key))
        }
        let ended = schedule.ended(at: time)
        try store.delete(keyIds: ended.map(\.keyId))
        report.deleted = ended.map(\.keyId)
        rows.removeAll { row in ended.contains { $0.keyId == row.key.keyId } }
        schedule = SigningKeySchedule(rows.map(\.key))

        let known = state.withLock { state in (state.opened, state.unreadable) }
        var opened: [String: JSONWebSigningKey] = [:]
        var unreadable: Set<String> = []
        for row in rows {
            if let key = known.0[row.key.keyId] {
                opened[row.key.keyId] = key
            } else if let key = open(row) {
                opened[row.key.keyId] = key
            } else {
                unreadable.insert(row.key.keyId)
                if !known.1.contains(row.key.keyId) { report.unreadable.append(row.key.keyId) }
            }
        }
        let published = Published(schedule.published(at: time).compactMap { opened[$0.keyId] })
        state.withLock { state in
            state.schedule = schedule
            state.opened = opened
            state.unreadable = unreadable
            state.published = published
        }
        return report
    }

    /// What ``rotate()`` did.
    public enum Rotation: Sendable, Equatable {
        /// A new key, published now, signing from its `signsFrom`.
        case added(SigningKeySchedule.Key)
        /// A key is waiting to sign already; nothing was added.
        case waiting(SigningKeySchedule.Key)
    }

    /// Adds a replacement for the signing key (`gatehouse keys rotate`): published at once,
    /// signing ``SigningKeySchedule/publicationLead`` later; the first key signs at once.
    public func rotate() throws -> Rotation {
        for _ in 0..<3 {
            let time = timestamp()
            let schedule = SigningKeySchedule(try store.all().map(\.key))
            guard let addition = schedule.replacement(at: time) else { return .waiting(schedule.waiting(at: time)!) }
            if let made = try add(addition, at: time) {
                try refresh()
                return .added(made)
            }
            // Another instance added this generation meanwhile: look again.
        }
        throw Failure("another instance kept adding signing keys; try again")
    }

    /// What ``revoke(keyId:)`` did.
    public enum Revocation: Sendable, Equatable {
        /// No key has that id.
        case noSuchKey
        /// The key is gone; `replacement` is the key made because none was left (signing at once).
        case revoked(replacement: SigningKeySchedule.Key?)
    }

    /// Removes the key `keyId` at once (`gatehouse keys revoke`, after a leak): it is no longer
    /// published, so the tokens it signed stop verifying. If it was the signing key, the key
    /// before it signs again while published, else the waiting one at once; if it was the last
    /// key, a new one is made that signs at once.
    public func revoke(keyId: String) throws -> Revocation {
        let time = timestamp()
        let revocation = try store.revoke(keyId: keyId) { generation in
            let key = try make(SigningKeySchedule.Addition(generation: generation + 1, signsFrom: time), at: time)
            return (key.schedule, key.sealed)
        }
        try refresh()
        switch revocation {
        case .noSuchKey: return .noSuchKey
        case .revoked(let replacement): return .revoked(replacement: replacement)
        }
    }

    /// Every stored key with its state now, in schedule order (`gatehouse keys list`).
    public func list() throws -> [(key: SigningKeySchedule.Key, state: SigningKeySchedule.State)] {
        let time = timestamp()
        let schedule = SigningKeySchedule(try store.all().map(\.key))
        return schedule.keys.map { ($0, schedule.state(of: $0, at: time)) }
    }

    /// Now, to the millisecond: what the database keeps of the keys' times, so that a time read
    /// back equals the one written.
    private func timestamp() -> Date {
        Date(timeIntervalSince1970: (now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    // MARK: Making and opening keys

    /// Makes and stores the key of `addition`; nil when another instance stored one of its
    /// generation first.
    private func add(_ addition: SigningKeySchedule.Addition, at time: Date) throws -> SigningKeySchedule.Key? {
        let made = try make(addition, at: time)
        guard try store.insert(made.schedule, sealedPrivateKey: made.sealed) else { return nil }
        state.withLock { $0.opened[made.schedule.keyId] = made.key }
        return made.schedule
    }

    /// A new key of the policy's algorithm for `addition`, named by its RFC 7638 thumbprint, and
    /// its private half sealed.
    private func make(
        _ addition: SigningKeySchedule.Addition, at time: Date
    ) throws -> (schedule: SigningKeySchedule.Key, key: JSONWebSigningKey, sealed: [UInt8]) {
        guard let box else {
            throw Failure("no signing key can be made without GATEHOUSE_SECRET_KEY, which seals it")
        }
        let key: JSONWebSigningKey
        let der: [UInt8]
        do {
            key = try JSONWebSigningKey(generating: policy.algorithm) { Base64URL.encode(SHA256.digest($0.thumbprintInput)) }
            der = try key.derEncoded()
        } catch {
            throw Failure("a signing key could not be made: \(error)")
        }
        let schedule = SigningKeySchedule.Key(
            keyId: key.keyId, generation: addition.generation, algorithm: policy.algorithm, createdAt: time,
            signsFrom: addition.signsFrom)
        return (schedule, key, box.seal(der))
    }

    /// The stored key opened, or nil when it was sealed under another key or does not read back.
    private func open(_ row: SigningKeyStore.Row) -> JSONWebSigningKey? {
        guard let der = box?.open(row.sealedPrivateKey) else { return nil }
        return try? JSONWebSigningKey(der: der, algorithm: row.key.algorithm, keyId: row.key.keyId)
    }
}
