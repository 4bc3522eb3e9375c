import HTTPServer
import Testing

@Suite("HTTP value types")
struct HTTPTypesTests {
    @Test(arguments: [
        ("", [String]()),
        ("a=1", ["a=1"]),
        ("a=1&b=2&a=3", ["a=1", "b=2", "a=3"]),
        ("q=hello+world", ["q=hello world"]),
        ("q=%2B%26%3D", ["q=+&="]),
        ("flag&&x=", ["flag=", "x="]),
        ("k%20ey=v%C3%A9", ["k ey=vé"]),
        ("bad=%G1%", ["bad=%G1%"]),
        ("invalid=%FF", ["invalid=\u{FFFD}"]),
        ("eq=a=b", ["eq=a=b"]),
    ])
    func queryDecoding(raw: String, expected: [String]) {
        let request = HTTPRequest(method: "GET", path: "/", rawQuery: raw)
        #expect(request.queryItems.map { "\($0.name)=\($0.value)" } == expected)
    }

    @Test func queryValueReturnsFirst() {
        let request = HTTPRequest(method: "GET", path: "/", rawQuery: "a=1&a=2")
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValue("b") == nil)
    }

    @Test(arguments: [
        ("application/x-www-form-urlencoded", ["username=ann b", "token=a+b&c"]),
        ("Application/X-WWW-Form-Urlencoded; charset=UTF-8", ["username=ann b", "token=a+b&c"]),
        (" \tapplication/x-www-form-urlencoded \t;charset=UTF-8", ["username=ann b", "token=a+b&c"]),
        ("application/x-www-form-urlencodedx", []),
        ("application/x-www-form-urlencode", []),
        ("", []),
        ("application/json", []),
        ("multipart/form-data; boundary=x", []),
        (nil, []),
    ] as [(String?, [String])])
    func formDecoding(contentType: String?, expected: [String]) {
        let headers: HTTPHeaders = contentType.map { ["Content-Type": $0] } ?? [:]
        let request = HTTPRequest(
            method: "POST", path: "/", headers: headers, body: Array("username=ann+b&token=a%2Bb%26c".utf8))
        #expect(request.formItems.map { "\($0.name)=\($0.value)" } == expected)
    }

    @Test func headersAreOrderedAndCaseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-TYPE"] == "text/plain")
        #expect(headers["X-a"] == "1")
        #expect(headers.values(for: "X-A") == ["1", "2"])
        #expect(headers.map(\.name) == ["Content-Type", "X-A", "x-a"])
        headers.replaceOrAdd(name: "X-A", value: "3")
        #expect(headers.values(for: "x-a") == ["3"])
        headers.remove("CONTENT-type")
        #expect(!headers.contains("Content-Type"))
        #expect(headers["Missing"] == nil)
    }

    @Test(arguments: [
        (HTTPStatus.ok, 200, "OK"), (.notFound, 404, "Not Found"),
        (.contentTooLarge, 413, "Content Too Large"),
        (.requestHeaderFieldsTooLarge, 431, "Request Header Fields Too Large"),
        (.internalServerError, 500, "Internal Server Error"),
    ])
    func statusReasonPhrases(status: HTTPStatus, code: Int, phrase: String) {
        #expect(status.code == code)
        #expect(status.reasonPhrase == phrase)
    }

    @Test func bodyTooLargeResponse() {
        let response = HTTPResponse.bodyTooLarge
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"request body too large"}"#)
    }

    @Test func errorDescriptions() {
        #expect(HTTPServerError.addressInUse(host: "127.0.0.1", port: 1337).description
            == "address 127.0.0.1:1337 is already in use")
        #expect(HTTPServerError.addressInUse(host: "::1", port: 80).description
            == "address [::1]:80 is already in use")
    }
}
