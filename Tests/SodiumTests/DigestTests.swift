import Testing
import Sodium
import Signatures

@Suite struct ConstantTimeTests {
    @Test func equalBytes() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals([] as [UInt8], [] as [UInt8]))
        #expect(ConstantTime.equals("r:abc", "r:abc"))
    }

    @Test(arguments: [
        ([1, 2, 3], [1, 2, 4]),
        ([1, 2, 3], [0, 2, 3]),
        ([1, 2, 3], [1, 2]),
        ([1, 2], [1, 2, 3]),
        ([], [0]),
    ] as [([UInt8], [UInt8])])
    func differentBytes(_ a: [UInt8], _ b: [UInt8]) {
        #expect(!ConstantTime.equals(a, b))
    }

    @Test func stringsCompareAsUTF8() {
        #expect(!ConstantTime.equals("é", "e\u{301}"))  // canonically equal, different bytes
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
        let token = SecureRandom.sessionToken()
        #expect(ConstantTime.equals(token, String(token)))
        #expect(ConstantTime.equals(SHA256.digest(token), SHA256.digest(token)))
    }
}
