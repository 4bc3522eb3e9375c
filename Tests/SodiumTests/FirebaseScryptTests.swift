import Testing
import Sodium
import Signatures

/// Password hashes exported by Firebase Authentication verify: the vector is the one published in
/// the README of github.com/firebase/scrypt (project parameters, one exported user, its password).
@Suite struct FirebaseScryptTests {
    static let parameters = FirebaseScrypt.Parameters(
        signerKey: FirebaseScrypt.decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: FirebaseScrypt.decode("Bw==")!, rounds: 8, memCost: 14)
    static let salt = FirebaseScrypt.decode("42xEC+ixf3L2lw==")!
    static let exported = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
    static let stored = FirebaseScrypt.storedHash(
        hash: FirebaseScrypt.decode(exported)!, salt: salt, parameters: parameters)!

    let hasher = try! PasswordHasher(cost: .minimum)

    @Test func publishedVectorHashes() {
        let hash = FirebaseScrypt.hash(Array("user1password".utf8), salt: Self.salt, parameters: Self.parameters)
        #expect(hash.map(FirebaseScrypt.base64) == Self.exported)
    }

    @Test func storedHashVerifiesAndAsksForRehash() {
        #expect(Self.stored.hasPrefix("$firebase-scrypt$r=8,m=14$"))
        #expect(hasher.verify("user1password", against: Self.stored) == .valid(needsRehash: true))
        #expect(hasher.verify("user1password ", against: Self.stored) == .invalid)
        #expect(hasher.verify("", against: Self.stored) == .invalid)
    }

    @Test func kindIsItsCost() {
        #expect(HashKinds.kind(of: Self.stored) == "$firebase-scrypt$r=8,m=14")
        let kinds = HashKinds(current: .minimum)
        kinds.replace(withPrefixes: ["$firebase-scrypt$r=8,m=14"])
        #expect(kinds.kinds.contains("$firebase-scrypt$r=8,m=14"))
        // A failed log-in checks the dummy of this kind too, which costs a real verification.
        var checked: [String] = []
        _ = kinds.verify(Array("x".utf8), against: nil) { hash in
            checked.append(hash)
            return hasher.verify("x", against: hash)
        }
        #expect(checked.contains { $0.hasPrefix("$firebase-scrypt$r=8,m=14$") })
        #expect(checked.allSatisfy { hasher.verify("x", against: $0) == .invalid })
    }

    @Test(arguments: [
        "$firebase-scrypt$r=8,m=14$AA==$Bw==$AA==",  // too few parts
        "$firebase-scrypt$r=8,m=99$AA==$Bw==$AA==$AA==",  // memory cost out of range
        "$firebase-scrypt$r=64,m=20$AA==$Bw==$AA==$AA==",  // too much memory
        "$firebase-scrypt$r=8,m=14$AA==$Bw==$AA==$AAA=",  // hash not the signer key's length
        "$firebase-scrypt$r=8,m=14$AA==$Bw==$$AA==",  // no salt
        "$firebase-scrypt$r=8,m=14$A A=$Bw==$AA==$AA==",  // not base64
        "$firebase-scrypt$r=08,m=14$AA==$Bw==$AA==$AA==",  // not canonical
    ])
    func malformedIsUnrecognized(_ hash: String) {
        #expect(hasher.verify("user1password", against: hash) == .unrecognizedHash)
    }

    @Test func aesCounterModeMatchesNISTVector() throws {
        // NIST SP 800-38A F.5.5 (CTR-AES256.Encrypt), first block.
        let key = hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
        let counter = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let plain = hex("6bc1bee22e409f96e93d7e117393172a")
        #expect(try AESCTR.apply(key: key, initialCounter: counter, to: plain) == hex("601ec313775789a5b7a7f504bbf3d228"))
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
