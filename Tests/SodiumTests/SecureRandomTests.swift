import Testing
import Sodium

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 16, 32, 1000])
    func bytesHaveTheRequestedCount(_ count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func bytesDiffer() {
        // 2^-256 chance of a false failure.
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect(SecureRandom.bytes(32) != [UInt8](repeating: 0, count: 32))
    }

    @Test func sessionTokenFormat() throws {
        for _ in 0..<200 {
            let token = SecureRandom.sessionToken()
            #expect(token.wholeMatch(of: /r:[0-9a-f]{32}/) != nil, "\(token)")
        }
    }

    @Test func sessionTokensAreUnique() {
        let tokens = Set((0..<1000).map { _ in SecureRandom.sessionToken() })
        #expect(tokens.count == 1000)
    }

    @Test func sessionTokensUseEveryHexDigit() {
        let digits = Set((0..<100).flatMap { _ in SecureRandom.sessionToken().dropFirst(2) })
        #expect(digits == Set("0123456789abcdef"))
    }

    @Test func objectIdFormat() {
        for _ in 0..<500 {
            let id = SecureRandom.objectId()
            #expect(id.wholeMatch(of: /[A-Za-z0-9]{10}/) != nil, "\(id)")
        }
    }

    @Test func objectIdsCoverTheWholeAlphabet() {
        // 20 000 draws from 62 characters: the chance that one is never drawn is about 62·e^-325.
        let seen = Set((0..<2000).flatMap { _ in SecureRandom.objectId().utf8 })
        #expect(seen == Set(SecureRandom.objectIdAlphabet))
        #expect(SecureRandom.objectIdAlphabet.count == 62)
    }

    @Test func objectIdsAreUnique() {
        let ids = Set((0..<1000).map { _ in SecureRandom.objectId() })
        #expect(ids.count == 1000)
    }
}
