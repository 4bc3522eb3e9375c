import Testing
@testable import Sodium

/// argon2id at libsodium's minimum cost (STYLE.md: never the production cost in tests).
@Suite struct PasswordHasherTests {
    let hasher = try! PasswordHasher(cost: .minimum)

    @Test func hashIsArgon2idPHCStringOfTheConfiguredCost() throws {
        let hash = try hasher.hash("correct horse")
        #expect(hash.hasPrefix("$argon2id$v=19$m=8,t=1,p=1$"))
        #expect(hash.utf8.count < 128)
    }

    @Test func roundTrip() throws {
        let hash = try hasher.hash("correct horse")
        #expect(hasher.verify("correct horse", against: hash) == .valid(needsRehash: false))
    }

    @Test func saltsDiffer() throws {
        #expect(try hasher.hash("same") != hasher.hash("same"))
    }

    @Test(arguments: ["correct hors", "correct horse ", "Correct horse", ""])
    func wrongPasswordIsInvalid(_ attempt: String) throws {
        let hash = try hasher.hash("correct horse")
        #expect(hasher.verify(attempt, against: hash) == .invalid)
    }

    @Test func emptyPasswordHashesAndVerifies() throws {
        let hash = try hasher.hash("")
        #expect(hasher.verify("", against: hash) == .valid(needsRehash: false))
        #expect(hasher.verify("x", against: hash) == .invalid)
    }

    @Test func nulBytesInsideThePasswordCount() throws {
        let password: [UInt8] = [0x61, 0x00, 0x62]
        let hash = try hasher.hash(password)
        #expect(hasher.verify(password, against: hash).isValid)
        #expect(hasher.verify([0x61], against: hash) == .invalid)
        #expect(hasher.verify([0x61, 0x00], against: hash) == .invalid)
        #expect(hasher.verify("a\u{0}b", against: hash).isValid)
    }

    @Test func longPasswordUsesEveryByte() throws {
        let long = String(repeating: "p", count: 10_000)
        let hash = try hasher.hash(long)
        #expect(hasher.verify(long, against: hash).isValid)
        #expect(hasher.verify(long + "q", against: hash) == .invalid)
        #expect(hasher.verify(String(long.dropLast()), against: hash) == .invalid)
    }

    @Test func stringAndBytesAgree() throws {
        let hash = try hasher.hash("pässwörd ✓")
        #expect(hasher.verify(Array("pässwörd ✓".utf8), against: hash).isValid)
    }

    @Test func needsRehashWhenOpsLimitDiffers() throws {
        let hash = try hasher.hash("pw")
        let stronger = try PasswordHasher(cost: .init(opsLimit: 2, memLimit: PasswordHasher.Cost.minimum.memLimit))
        #expect(stronger.verify("pw", against: hash) == .valid(needsRehash: true))
        #expect(stronger.verify("nope", against: hash) == .invalid)
    }

    @Test func needsRehashWhenMemLimitDiffers() throws {
        let hash = try hasher.hash("pw")
        let bigger = try PasswordHasher(cost: .init(opsLimit: 1, memLimit: 16 * 1024))
        #expect(bigger.verify("pw", against: hash) == .valid(needsRehash: true))
        // And back: the hash made by `bigger` is outdated for `hasher`.
        #expect(hasher.verify("pw", against: try bigger.hash("pw")) == .valid(needsRehash: true))
    }

    @Test func presetsAreLibsodiumConstants() {
        #expect(PasswordHasher.Cost.interactive == .init(opsLimit: 2, memLimit: 64 << 20))
        #expect(PasswordHasher.Cost.moderate == .init(opsLimit: 3, memLimit: 256 << 20))
        #expect(PasswordHasher.Cost.minimum == .init(opsLimit: 1, memLimit: 8192))
    }

    @Test(arguments: [
        PasswordHasher.Cost(opsLimit: 0, memLimit: 8192),
        PasswordHasher.Cost(opsLimit: 1, memLimit: 8191),
        PasswordHasher.Cost(opsLimit: 1, memLimit: -1),
    ])
    func costOutsideLimitsIsRejected(_ cost: PasswordHasher.Cost) {
        #expect(throws: SodiumError.invalidCost(opsLimit: cost.opsLimit, memLimit: cost.memLimit)) {
            try PasswordHasher(cost: cost)
        }
    }

    // MARK: Malformed hashes

    @Test(arguments: [
        "",
        "$",
        "plaintext-password",
        "$argon2id$",
        "$argon2id$v=19$m=8,t=1,p=1$",
        "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHRzYWx0$",
        "$argon2id$v=19$m=8,t=1,p=1$!!!!$????",
        "$argon2id$v=19$m=x,t=1,p=1$Z2F0ZWhvdXNlOmR1bW15IQ$wLl+MyHi5nzB7gc5nVgbSMFQWhbKNRwvhUcZKoAFR5U",
        "$argon2id$v=19$m=8,t=1,p=1$Z2F0ZWhvdXNlOmR1bW15IQ$wLl+MyHi5nzB7gc5nVgbSMFQWhbKNRwvhUcZKoAFR5U" + String(repeating: "A", count: 200),
        "$argon2id$v=19$m=8,t=1,p=1$Z2F0ZWhv\u{0}dXNlOmR1bW15IQ$wLl+MyHi5nzB7gc5nVgbSMFQWhbKNRwvhUcZKoAFR5U",
        "$argon2i$v=19$m=8,t=1,p=1$Z2F0ZWhvdXNlOmR1bW15IQ$wLl+MyHi5nzB7gc5nVgbSMFQWhbKNRwvhUcZKoAFR5U",
        "$argon2d$v=19$m=8,t=1,p=1$Z2F0ZWhvdXNlOmR1bW15IQ$wLl+MyHi5nzB7gc5nVgbSMFQWhbKNRwvhUcZKoAFR5U",
        "$2b$10$garbage",
        "$2b$10$" + String(repeating: "*", count: 53),
        "$2b$99$" + String(repeating: "a", count: 53),
        "$2b$03$" + String(repeating: "a", count: 53),
        "$2x$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO",
        "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WOX",
        "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/W",
        "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",  // md5crypt: libxcrypt would accept it, we must not
        "ab01FAX.bQRSU",  // traditional DES crypt, likewise
        "$6$rounds=5000$salt$" + String(repeating: "x", count: 86),
        String(repeating: "$", count: 10_000),
    ])
    func malformedOrForeignHashIsUnrecognized(_ hash: String) {
        #expect(hasher.verify("correct horse battery staple", against: hash) == .unrecognizedHash)
        #expect(hasher.verify("", against: hash) == .unrecognizedHash)
    }

    @Test func resultAccessors() {
        #expect(VerifyResult.valid(needsRehash: true).isValid)
        #expect(VerifyResult.valid(needsRehash: true).needsRehash)
        #expect(!VerifyResult.valid(needsRehash: false).needsRehash)
        #expect(!VerifyResult.invalid.isValid && !VerifyResult.invalid.needsRehash)
        #expect(!VerifyResult.unrecognizedHash.isValid)
    }

    @Test func errorDescriptionsCarryNoSecrets() {
        let errors: [SodiumError] = [
            .invalidCost(opsLimit: 0, memLimit: 1),
            .outOfMemory(operation: "crypto_pwhash_str_alg"),
            .failed(operation: "crypto_pwhash_str_alg", code: -1, errno: 22),
        ]
        for error in errors {
            #expect(!error.description.contains("$"))
            #expect(!error.description.isEmpty)
        }
        #expect(!HashingPoolError.hashingFailed(errors[1]).description.contains("$"))
    }
}
