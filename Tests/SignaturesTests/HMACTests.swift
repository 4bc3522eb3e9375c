import Signatures
import Testing

/// HMAC-SHA-1 against the test cases of RFC 2202 §3.
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
}
