import Glibc
@testable import HTTPServer
import Testing

/// The small parsers and formatters on the request path.
@Suite("HTTP wire formats")
struct WireFormatTests {
    @Test(arguments: [
        ("0", UInt64(0)), ("42", 42), (" 42\t", 42), ("18446744073709551615", UInt64.max),
    ])
    func contentLength(text: String, expected: UInt64) {
        #expect(decimal(text) == expected)
    }

    @Test(arguments: ["", " ", "4 2", "+1", "-1", "0x10", "1.5", "18446744073709551616", "١٢"])
    func contentLengthRejects(text: String) {
        #expect(decimal(text) == nil)
    }

    @Test func headerNamesCompareCaseInsensitively() {
        #expect(HTTPHeaders.namesEqual("Content-Type", "content-type"))
        #expect(HTTPHeaders.namesEqual("X-PARSE-SESSION-TOKEN", "X-Parse-Session-Token"))
        #expect(!HTTPHeaders.namesEqual("Content-Type", "Content-Typo"))
        #expect(!HTTPHeaders.namesEqual("Accept", "Accept-Encoding"))
        // Only ASCII letters fold: `[` (0x5B) is not `{` (0x7B), and non-ASCII bytes are compared as they are.
        #expect(!HTTPHeaders.namesEqual("a[", "a{"))
        #expect(!HTTPHeaders.namesEqual("É", "é"))
        let headers: HTTPHeaders = ["Host": "x", "accept": "application/json"]
        #expect(headers["ACCEPT"] == "application/json")
    }

    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("10.20.3.100", "10.20.3.100"), ("::1", "::1"), ("2001:db8::8a2e:370:7334", "2001:db8::8a2e:370:7334"),
        ("::ffff:192.168.0.9", "192.168.0.9"),
    ])
    func peerAddressText(host: String, expected: String) throws {
        var address = try #require(SocketAddress(host: host, port: 80))
        let text = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress.text(of: $0) }
        }
        #expect(text == expected)
    }
}
