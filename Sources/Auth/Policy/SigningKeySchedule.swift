public import Foundation
public import JWT

/// When each access-token signing key is published and when it signs: the rule that lets keys
/// rotate without a failed verification. A pure value: every instance derives the same answers
/// from the same keys and time.
///
/// Verifiers cache the key set for up to ``AccessTokenPolicy/keySetMaxAge``. So a key is
/// published from its creation and signs only ``publicationLead`` (twice that max-age) later,
/// by when every cached copy of the set holds it; and a key that stops signing stays published for
/// ``retention`` (the longest token lifetime) after, by when every token it signed has expired.
///
/// Keys are ordered by `signsFrom`, then `generation`. At a time t:
/// - a key whose `signsFrom` is after t is *next*: published, not signing yet;
/// - of the others, the last one *signs*;
/// - each earlier one is *retired* from the `signsFrom` of the key after it (when that key began
///   to sign) until that moment plus ``retention``: published, not signing; then *ended*: it may
///   be deleted;
/// - when no key's `signsFrom` has come (every earlier key was revoked), the first next key signs
///   at once: signing with a key verifiers may not have fetched yet beats not signing.
public struct SigningKeySchedule: Sendable, Equatable {
    /// A stored key as the schedule sees it (its private half aside).
    public struct Key: Sendable, Hashable {
        /// `kid`: the key's RFC 7638 thumbprint.
        public var keyId: String
        /// 1 for the first key, one more for each replacement: two instances making the same
        /// replacement at once meet at this number (it is unique in the database).
        public var generation: Int64
        public var algorithm: SigningAlgorithm
        /// When it was made, and published.
        public var createdAt: Date
        /// When it begins to sign (``SigningKeySchedule/publicationLead`` after `createdAt`; the first key: at once).
        public var signsFrom: Date

        public init(keyId: String, generation: Int64, algorithm: SigningAlgorithm, createdAt: Date, signsFrom: Date) {
            self.keyId = keyId
            self.generation = generation
            self.algorithm = algorithm
            self.createdAt = createdAt
            self.signsFrom = signsFrom
        }
    }

    /// Where a key is in its life at a given time.
    public enum State: Sendable, Hashable {
        /// Published; signs from the key's `signsFrom`.
        case next
        /// Published, and signs every new token.
        case signing
        /// Published until the date, for the tokens it signed; signs no more.
        case retired(publishedUntil: Date)
        /// Neither published nor signing: every token it signed has expired.
        case ended
    }

    /// A key to add: its generation and when it begins to sign.
    public struct Addition: Sendable, Hashable {
        public var generation: Int64
        public var signsFrom: Date

        public init(generation: Int64, signsFrom: Date) {
            self.generation = generation
            self.signsFrom = signsFrom
        }
    }

    /// Seconds between a replacement's creation (and publication) and its first signature: twice
    /// the key set's max-age.
    public static let publicationLead = TimeInterval(2 * AccessTokenPolicy.keySetMaxAge)
    /// Seconds a replaced key stays published after it stopped signing: the longest lifetime a
    /// token may have, and the clock leeway, so that tokens of every instance's setting are covered.
    public static let retention = TimeInterval(AccessTokenPolicy.lifetimes.upperBound + AccessTokenPolicy.clockLeeway)

    /// The keys, in schedule order.
    public let keys: [Key]

    public init(_ keys: [Key]) {
        self.keys = keys.sorted { ($0.signsFrom, $0.generation) < ($1.signsFrom, $1.generation) }
    }

    /// `key`'s state at `time` (`key` is one of ``keys``).
    public func state(of key: Key, at time: Date) -> State {
        guard let index = keys.firstIndex(of: key) else { return .ended }
        guard key.signsFrom <= time else { return index == 0 ? .signing : .next }
        // The next key whose time to sign has come replaced this one when it came.
        guard let successor = keys[(index + 1)...].first(where: { $0.signsFrom <= time }) else { return .signing }
        let publishedUntil = successor.signsFrom.addingTimeInterval(Self.retention)
        return time < publishedUntil ? .retired(publishedUntil: publishedUntil) : .ended
    }

    /// The key that signs at `time`; nil without keys.
    public func signer(at time: Date) -> Key? {
        keys.last { $0.signsFrom <= time } ?? keys.first
    }

    /// The keys a key set publishes at `time`: every key not ended, in schedule order.
    public func published(at time: Date) -> [Key] {
        keys.filter { state(of: $0, at: time) != .ended }
    }

    /// The keys ended at `time`, which may be deleted.
    public func ended(at time: Date) -> [Key] {
        keys.filter { state(of: $0, at: time) == .ended }
    }

    /// The key waiting to sign at `time`, if any (while one waits, no replacement is added).
    public func waiting(at time: Date) -> Key? {
        keys.first { state(of: $0, at: time) == .next }
    }

    /// What automatic rotation adds at `time`: the first key, signing at once, when there is none;
    /// a replacement when no key is waiting and the signing key is `rotationDays` old (0: never)
    /// or of another algorithm than `algorithm` (the setting changed); else nil.
    public func dueAddition(at time: Date, rotationDays: Int, algorithm: SigningAlgorithm) -> Addition? {
        guard let signer = signer(at: time) else { return Addition(generation: 1, signsFrom: time) }
        guard waiting(at: time) == nil else { return nil }
        let old = rotationDays > 0 && time.timeIntervalSince(signer.createdAt) >= Double(rotationDays) * 86400
        return old || signer.algorithm != algorithm ? replacement(at: time) : nil
    }

    /// What `gatehouse keys rotate` adds at `time`: a key signing ``publicationLead`` later (the
    /// first key: at once); nil while a key is waiting already.
    public func replacement(at time: Date) -> Addition? {
        guard let newest = keys.map(\.generation).max() else { return Addition(generation: 1, signsFrom: time) }
        guard waiting(at: time) == nil else { return nil }
        return Addition(generation: newest + 1, signsFrom: time.addingTimeInterval(Self.publicationLead))
    }
}
