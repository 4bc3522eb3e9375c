import Sodium
import Testing

/// SecretBox: sealing and opening under a key derived from GATEHOUSE_SECRET_KEY, and the keys it refuses.
struct SecretBoxTests {
    static let key = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"

    @Test func sealsAndOpens() throws {
        let box = try SecretBox(secretKey: Self.key, purpose: .totp)
        let secret = Array("a TOTP secret of twenty".utf8)
        let sealed = box.seal(secret)
        #expect(sealed.count == 24 + secret.count + 16)
        #expect(box.open(sealed) == secret)
        #expect(box.seal(secret) != sealed, "a fresh nonce each time")
        #expect(box.open(box.seal([])) == [])
    }

    @Test func refusesAnotherKeyAlteredOrShortInput() throws {
        let box = try SecretBox(secretKey: Self.key, purpose: .totp)
        let other = try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .totp)
        let sealed = box.seal(Array("secret".utf8))
        #expect(other.open(sealed) == nil)
        for index in [0, 23, 24, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 1
            #expect(box.open(altered) == nil, "byte \(index) altered")
        }
        #expect(box.open(Array(sealed.prefix(39))) == nil)
        #expect(box.open([]) == nil)
    }

    /// One secret key, a separate key per purpose: a sealed mail link is no TOTP secret, and back.
    @Test func eachPurposeHasItsOwnKey() throws {
        let totp = try SecretBox(secretKey: Self.key, purpose: .totp)
        let links = try SecretBox(secretKey: Self.key, purpose: .mailLinks)
        #expect(links.open(totp.seal([1, 2, 3])) == nil)
        #expect(totp.open(links.seal([1, 2, 3])) == nil)
        #expect(try SecretBox(secretKey: Self.key, purpose: .mailLinks).open(links.seal([1, 2, 3])) == [1, 2, 3])
    }

    @Test func theKeyIsReadAsHexIgnoringCaseAndSurroundingSpace() throws {
        let lower = try SecretBox(secretKey: Self.key.lowercased(), purpose: .totp)
        let spaced = try SecretBox(secretKey: "  \(Self.key)\n", purpose: .totp)
        let sealed = lower.seal([1, 2, 3])
        #expect(spaced.open(sealed) == [1, 2, 3])
    }

    @Test(arguments: ["", "00", String(repeating: "0", count: 63), String(repeating: "0", count: 65),
                      String(repeating: "g", count: 64), String(repeating: "0", count: 32) + " " + String(repeating: "0", count: 31)])
    func refusesMalformedKeys(_ key: String) {
        #expect(throws: SecretBox.InvalidKey.self) { try SecretBox(secretKey: key, purpose: .totp) }
    }

    @Test func newKeysAreSixtyFourHexCharactersAndDiffer() throws {
        let key = SecretBox.newSecretKey()
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit))
        #expect(key != SecretBox.newSecretKey())
        _ = try SecretBox(secretKey: key, purpose: .totp)
    }
}
