import Signatures
import Testing

/// SHA-1 through libcrypto.
@Suite struct SHA1Tests {
    /// FIPS 180 examples (the one-million-`a` vector included), the padding's edges (55, 56, 63, 64
    /// and 65 bytes: one block or two), and the breached-password corpus' most famous line.
    static let vectors: [(String, String)] = [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        (String(repeating: "a", count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 56), "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (String(repeating: "a", count: 63), "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (String(repeating: "a", count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (String(repeating: "a", count: 65), "11655326c708d70319be2610e8a57d9a5b959d3b"),
        (String(repeating: "a", count: 120), "f34c1488385346a55709ba056ddd08280dd4c6d6"),
        ("password", "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"),
        ("pässwörd", "f517ddf1d32a112ff1ad55c66d1b12cb38e7e8f7"),
    ]

    @Test(arguments: vectors)
    func knownVectors(_ input: String, _ expected: String) {
        #expect(SHA1.hexDigest(input) == expected)
        let digest = SHA1.digest(input)
        #expect(digest.count == SHA1.byteCount)
        #expect(digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() == expected)
        #expect(SHA1.digest(Array(input.utf8)) == digest)
        #expect(SHA1.digest(input.utf8.lazy.map { $0 }) == digest)
    }
}
