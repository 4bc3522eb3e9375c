import Testing
import Sodium

/// bcrypt hashes imported from Parse Server verify through libxcrypt.
///
/// The `correct horse battery staple` and `a`×72 hashes were made on Debian 12 with
/// libxcrypt 4.4.33 by a tiny C program: `crypt_gensalt_rn(prefix, 10, NULL, 0, …)` for
/// prefix `$2b$`, `$2a$`, `$2y$`, then `crypt_rn(password, salt, &data, sizeof data)`.
/// The `U*U` vectors are independent: they are the published test vectors of Openwall's
/// crypt_blowfish (wrapper.c), which `$2a$`/`$2y$` implementations are checked against.
@Suite struct BcryptTests {
    let hasher = try! PasswordHasher(cost: .minimum)

    static let password = "correct horse battery staple"

    static let knownHashes = [
        "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO",
        "$2a$10$S4O./y0RgzQ35VUZrfIUMOO/fErhlEjYtWAldvtg4h9BdisCTPGWK",
        "$2y$10$KxAK4gg4tUjl.oZb7g3.xO2OIiHBSq/4/2LLbgcOElrCtvhTxkPT.",
    ]

    @Test(arguments: knownHashes)
    func knownHashVerifiesAndAsksForRehash(_ hash: String) {
        // Any bcrypt match asks for an upgrade to argon2id.
        #expect(hasher.verify(Self.password, against: hash) == .valid(needsRehash: true))
    }

    @Test(arguments: knownHashes)
    func wrongPasswordIsInvalid(_ hash: String) {
        #expect(hasher.verify("correct horse battery stapler", against: hash) == .invalid)
        #expect(hasher.verify("", against: hash) == .invalid)
    }

    @Test(arguments: [
        ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
        ("U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"),
    ])
    func openwallVectors(_ password: String, _ hash: String) {
        #expect(hasher.verify(password, against: hash).isValid)
        #expect(hasher.verify(password + "U", against: hash) == .invalid)
    }

    @Test func openwallHighBitVector() {
        // "\xff\xff\xa3" as raw bytes: not valid UTF-8, so only the byte API can say it.
        let hash = "$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e"
        #expect(hasher.verify([0xff, 0xff, 0xa3], against: hash).isValid)
        #expect(hasher.verify([0xff, 0xff, 0xa4], against: hash) == .invalid)
    }

    @Test func onlyTheFirst72BytesCount() {
        // bcrypt's own limit (documented on PasswordHasher): `a`×72 and `a`×72 + "b" are alike.
        let hash = "$2b$10$zIE0gPbI3MFKCSKK/GHYiek2xjSKrYKZcO9J9HIw/we9OTMSB4KjC"
        let a72 = String(repeating: "a", count: 72)
        #expect(hasher.verify(a72, against: hash).isValid)
        #expect(hasher.verify(a72 + "b", against: hash).isValid)
        #expect(hasher.verify(String(repeating: "a", count: 71), against: hash) == .invalid)
    }

    @Test func passwordIsCutAtTheFirstNul() {
        // C strings end at NUL (documented on PasswordHasher).
        var bytes = Array(Self.password.utf8)
        bytes += [0] + Array("ignored".utf8)
        #expect(hasher.verify(bytes, against: Self.knownHashes[0]).isValid)
        #expect(hasher.verify([0] + Array(Self.password.utf8), against: Self.knownHashes[0]) == .invalid)
    }
}
