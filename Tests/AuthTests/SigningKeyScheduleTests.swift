import Auth
import Foundation
import JWT
import Testing

/// The key schedule with plain values: publication before signing, retirement, the fallback
/// signer, and what rotation adds.
@Suite struct SigningKeyScheduleTests {
    typealias Key = SigningKeySchedule.Key
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let lead = SigningKeySchedule.publicationLead
    static let retention = SigningKeySchedule.retention

    static func key(_ id: String, _ generation: Int64, created: TimeInterval, signs: TimeInterval, _ algorithm: SigningAlgorithm = .es256) -> Key {
        Key(keyId: id, generation: generation, algorithm: algorithm, createdAt: t0 + created, signsFrom: t0 + signs)
    }

    @Test func theLeadIsTwiceTheKeySetMaxAgeAndTheRetentionTheLongestLifetime() {
        #expect(Self.lead == 600)
        #expect(Self.retention == 3660)
    }

    /// A first key, then its replacement: the replacement is published at once and signs after the
    /// lead; the first stays published for the retention after that, then has ended.
    @Test func aRotationFromStartToEnd() {
        let first = Self.key("a", 1, created: 0, signs: 0)
        let second = Self.key("b", 2, created: 1000, signs: 1000 + Self.lead)
        let schedule = SigningKeySchedule([second, first])
        #expect(schedule.keys == [first, second])
        let switchAt = Self.t0 + 1000 + Self.lead
        let cases: [(TimeInterval, SigningKeySchedule.State, SigningKeySchedule.State, [String])] = [
            (500, .signing, .next, ["a", "b"]),
            (1000 + Self.lead - 1, .signing, .next, ["a", "b"]),
            (1000 + Self.lead, .retired(publishedUntil: switchAt + Self.retention), .signing, ["a", "b"]),
            (1000 + Self.lead + Self.retention - 1, .retired(publishedUntil: switchAt + Self.retention), .signing, ["a", "b"]),
            (1000 + Self.lead + Self.retention, .ended, .signing, ["b"]),
        ]
        for (offset, firstState, secondState, published) in cases {
            let time = Self.t0 + offset
            #expect(schedule.state(of: first, at: time) == firstState, "at \(offset)")
            #expect(schedule.state(of: second, at: time) == secondState, "at \(offset)")
            #expect(schedule.published(at: time).map(\.keyId) == published, "at \(offset)")
            #expect(schedule.signer(at: time)?.keyId == (secondState == .signing ? "b" : "a"), "at \(offset)")
        }
        #expect(schedule.ended(at: switchAt + Self.retention).map(\.keyId) == ["a"])
        #expect(schedule.waiting(at: Self.t0 + 500)?.keyId == "b")
        #expect(schedule.waiting(at: switchAt) == nil)
    }

    /// With every key whose time has come revoked, the waiting key signs at once.
    @Test func aWaitingKeySignsWhenNoOtherCan() {
        let waiting = Self.key("b", 2, created: 1000, signs: 1000 + Self.lead)
        let schedule = SigningKeySchedule([waiting])
        #expect(schedule.signer(at: Self.t0 + 1001)?.keyId == "b")
        #expect(schedule.state(of: waiting, at: Self.t0 + 1001) == .signing)
        #expect(schedule.waiting(at: Self.t0 + 1001) == nil)
        #expect(SigningKeySchedule([]).signer(at: Self.t0) == nil)
    }

    @Test func rotationAddsTheFirstKeyThenAReplacementWhenDue() {
        let none = SigningKeySchedule([])
        #expect(none.dueAddition(at: Self.t0, rotationDays: 30, algorithm: .es256) == .init(generation: 1, signsFrom: Self.t0))
        #expect(none.replacement(at: Self.t0) == .init(generation: 1, signsFrom: Self.t0))

        let first = SigningKeySchedule([Self.key("a", 1, created: 0, signs: 0)])
        let day = 86400.0
        #expect(first.dueAddition(at: Self.t0 + 30 * day - 1, rotationDays: 30, algorithm: .es256) == nil)
        #expect(first.dueAddition(at: Self.t0 + 30 * day, rotationDays: 30, algorithm: .es256)
            == .init(generation: 2, signsFrom: Self.t0 + 30 * day + Self.lead))
        #expect(first.dueAddition(at: Self.t0 + 3000 * day, rotationDays: 0, algorithm: .es256) == nil, "0: never")
        // The setting names another algorithm: replaced at once, whatever the key's age.
        #expect(first.dueAddition(at: Self.t0 + 1, rotationDays: 0, algorithm: .rs256) == .init(generation: 2, signsFrom: Self.t0 + 1 + Self.lead))
        // `keys rotate` adds one whenever none waits.
        #expect(first.replacement(at: Self.t0 + 5) == .init(generation: 2, signsFrom: Self.t0 + 5 + Self.lead))

        let rotating = SigningKeySchedule([Self.key("a", 1, created: 0, signs: 0), Self.key("b", 2, created: 100, signs: 100 + Self.lead)])
        #expect(rotating.replacement(at: Self.t0 + 200) == nil, "a key is waiting")
        #expect(rotating.dueAddition(at: Self.t0 + 200, rotationDays: 0, algorithm: .rs256) == nil, "a key is waiting")
        #expect(rotating.replacement(at: Self.t0 + 100 + Self.lead) == .init(generation: 3, signsFrom: Self.t0 + 100 + 2 * Self.lead))
    }

    /// Keys that begin to sign at the same moment are ordered by generation.
    @Test func equalStartsAreOrderedByGeneration() {
        let schedule = SigningKeySchedule([Self.key("b", 2, created: 0, signs: 0), Self.key("a", 1, created: 0, signs: 0)])
        #expect(schedule.keys.map(\.keyId) == ["a", "b"])
        #expect(schedule.signer(at: Self.t0)?.keyId == "b")
        #expect(schedule.state(of: schedule.keys[0], at: Self.t0) == .retired(publishedUntil: Self.t0 + Self.retention))
    }
}
