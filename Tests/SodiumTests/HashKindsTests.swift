import Synchronization
import Testing
@testable import Sodium

/// The kinds of stored hash, their dummies, and the one-verification-per-kind rule of a failed log-in.
@Suite struct HashKindsTests {
    let hasher = try! PasswordHasher(cost: .minimum)
    static let current = "$argon2id$v=19$m=8,t=1,p=1"
    /// The bcrypt hash of "correct horse battery staple" at cost 10 (BcryptTests).
    static let bcrypt = "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO"

    @Test(arguments: [
        ("$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$ZGlnZXN0", "$argon2id$v=19$m=65536,t=2,p=1"),
        ("$argon2id$v=19$m=65536,t=2,p=1", "$argon2id$v=19$m=65536,t=2,p=1"),
        ("$argon2id$v=19$m=8,t=1,p=1$", "$argon2id$v=19$m=8,t=1,p=1"),
        (bcrypt, "$2b$10"),
        ("$2a$12$S4O./y0RgzQ35VUZrfIUMOO/fErhlEjYtWAldvtg4h9BdisCTPGWK", "$2b$12"),
        ("$2y$04", "$2b$04"),
    ])
    func kindOfAHashOrItsPrefix(_ hash: String, _ kind: String) {
        #expect(HashKinds.kind(of: hash) == kind)
    }

    @Test(arguments: ["", "$", "plain", "$6$rounds=5000$salt$digest", "$argon2i$v=19$m=65536,t=2,p=1$s$d",
                      "$argon2id$m=65536,t=2,p=1$salt$digest", "$argon2id$v=19", "$argon2id$v=19$M=1$s$d",
                      "$2b$1x$abc", "$2b$100$abc", "$2c$10$abc"])
    func unrecognisedFormatsHaveNoKind(_ hash: String) {
        #expect(HashKinds.kind(of: hash) == nil)
    }

    @Test func startsWithTheCurrentKindOnly() {
        let kinds = HashKinds(current: hasher.cost)
        #expect(kinds.current == Self.current)
        #expect(kinds.kinds == [Self.current])
    }

    @Test func dummiesAreWellFormedHashesOfTheirKindThatMatchNoPassword() throws {
        for kind in [Self.current, "$argon2id$v=19$m=16,t=2,p=1", "$2b$04"] {
            let dummy = try #require(HashKinds.dummy(ofKind: kind))
            #expect(HashKinds.kind(of: dummy) == kind)
            // .invalid, not .unrecognizedHash: the password was hashed and compared.
            for password in ["", "password", "correct horse battery staple"] {
                #expect(hasher.verify(password, against: dummy) == .invalid)
            }
        }
        #expect(HashKinds.dummy(ofKind: "$argon2id$v=19$m=8,t=1,p=1") != HashKinds.dummy(ofKind: "$argon2id$v=19$m=8,t=1,p=1"))
    }

    @Test func replaceKeepsTheCurrentKindAndInsertGrows() {
        let kinds = HashKinds(current: hasher.cost)
        kinds.replace(withPrefixes: ["$2a$10", "$2b$10", "$argon2id$v=19$m=16,t=2,p=1", nil, "$6$x"])
        #expect(kinds.kinds == [Self.current, "$2b$10", "$argon2id$v=19$m=16,t=2,p=1"])
        kinds.replace(withPrefixes: [])
        #expect(kinds.kinds == [Self.current])
        kinds.insert(kindOf: Self.bcrypt)
        kinds.insert(kindOf: "unrecognised")
        #expect(kinds.kinds == [Self.current, "$2b$10"])
    }

    /// Every failed outcome verifies one hash of every kind; a match stops at the stored hash.
    @Test func aFailedLogInVerifiesOneHashOfEachKind() throws {
        let kinds = HashKinds(current: hasher.cost)
        let old = "$argon2id$v=19$m=16,t=1,p=1"
        kinds.replace(withPrefixes: ["$2b$04", old])
        let oldHash = try PasswordHasher(cost: .init(opsLimit: 1, memLimit: 16 * 1024)).hash("pw")
        let bcryptHash = try #require(HashKinds.dummy(ofKind: "$2b$04"))
        let every = [Self.current, "$2b$04", old].sorted()

        func checked(_ password: String, _ stored: String?) -> (VerifyResult, [String], [String]) {
            var hashes: [String] = []
            let result = kinds.verify(Array(password.utf8), against: stored) { hash in
                hashes.append(hash)
                return hasher.verify(password, against: hash)
            }
            return (result, hashes.compactMap { HashKinds.kind(of: $0) }.sorted(), hashes)
        }

        let unknown = checked("pw", nil)
        #expect(unknown.0 == .invalid && unknown.1 == every)
        let wrongCurrent = checked("px", try hasher.hash("pw"))
        #expect(wrongCurrent.0 == .invalid && wrongCurrent.1 == every)
        let wrongOld = checked("px", oldHash)
        #expect(wrongOld.0 == .invalid && wrongOld.1 == every && wrongOld.2.first == oldHash)
        let wrongBcrypt = checked("px", bcryptHash)
        #expect(wrongBcrypt.0 == .invalid && wrongBcrypt.1 == every && wrongBcrypt.2.first == bcryptHash)
        // An unrecognised hash costs no work of its own: a dummy of every kind stands in.
        let unrecognised = checked("pw", "$6$rounds=5000$salt$digest")
        #expect(unrecognised.0 == .unrecognizedHash && unrecognised.1 == every && unrecognised.2.count == 4)
        let right = checked("pw", oldHash)
        #expect(right.0 == .valid(needsRehash: true) && right.2 == [oldHash])
    }
}
