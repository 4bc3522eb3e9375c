import Foundation
import Signatures
import Testing

/// HMAC-SHA-1 against the test cases of RFC 2202 §3, HMAC-SHA-256 against those of RFC 4231 §4.
struct HMACTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    @Test func rfc2202Case1() {
        let mac = HMAC.sha1(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(hex(mac) == "b617318655057264e28bc0b6fb378c8ef146be00")
    }

    @Test func rfc2202Case2ShortKey() {
        let mac = HMAC.sha1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    @Test func rfc2202Case6KeyLongerThanABlock() {
        let mac = HMAC.sha1(
            key: [UInt8](repeating: 0xaa, count: 80),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(hex(mac) == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func rfc4231SHA256(key: [UInt8], message: String, expected: String) {
        let key = HMAC.SHA256Key(key)
        #expect(hex(key.mac(Array(message.utf8))) == expected)
        #expect(hex(key.mac(Array(message.utf8))) == expected, "a key signs again from the same start")
    }

    /// One key used by several threads at once signs each message as it would alone.
    @Test func aSHA256KeySignsOnSeveralThreadsAtOnce() {
        let key = HMAC.SHA256Key(Array("Jefe".utf8))
        let messages = (0..<400).map { Array("message \($0)".utf8) }
        let alone = messages.map { key.mac($0) }
        // Each index is written by one thread only.
        nonisolated(unsafe) let together = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: messages.count)
        together.initialize(repeating: [])
        defer { together.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in stride(from: lane, to: messages.count, by: 8) { together[index] = key.mac(messages[index]) }
        }
        #expect(Array(together) == alone)
    }
}
