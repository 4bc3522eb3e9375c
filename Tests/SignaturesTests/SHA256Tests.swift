import Foundation
import Testing
import Signatures

@Suite struct SHA256Tests {
    /// FIPS 180-2 / NIST examples (the one-million-`a` vector included).
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1_000_000),
         "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test(arguments: vectors)
    func knownVectors(_ input: String, _ expected: String) {
        #expect(SHA256.hexDigest(input) == expected)
        let digest = SHA256.digest(input)
        #expect(digest.count == SHA256.byteCount)
        #expect(digest == Self.bytes(fromHex: expected))
        // The byte entry points agree with the String one.
        #expect(SHA256.digest(Array(input.utf8)) == digest)
        #expect(SHA256.digest(input.utf8) == digest)
    }

    @Test func nonContiguousSequence() {
        #expect(SHA256.digest("abc".utf8.lazy.map { $0 }) == SHA256.digest("abc"))
        #expect(SHA256.digest(Set<UInt8>()) == SHA256.digest(""))
    }

    static func bytes(fromHex hex: String) -> [UInt8] {
        let chars = Array(hex.utf8)
        return stride(from: 0, to: chars.count, by: 2).map {
            UInt8(String(decoding: chars[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}

@Suite struct HexTests {
    @Test func everyByte() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.lowercase(all) == all.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.lowercase([]) == "")
    }
}
