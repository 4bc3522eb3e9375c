import Curl
import ServerTestSupport
import Testing

@Suite struct HTTPFetcherTests {
    @Test func getsStatusLowerCasedHeadersAndBody() throws {
        let provider = try OIDCTestProvider.start()
        defer { provider.stop() }
        try provider.setCacheControl("public, max-age=300")
        let response = try HTTPFetcher().get(provider.jwksURI)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["cache-control"] == "public, max-age=300")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("{\"keys\": ["))
        #expect(try HTTPFetcher().get(provider.issuer + "/absent").status == 404)
    }

    @Test func bodyUpToTheLimitIsReadLargerFails() throws {
        let provider = try OIDCTestProvider.start()
        defer { provider.stop() }
        #expect(try HTTPFetcher().get(provider.issuer + "/bytes/\(HTTPFetcher.maxBodySize)").body.count == HTTPFetcher.maxBodySize)
        let error = #expect(throws: FetchError.self) { try HTTPFetcher().get(provider.issuer + "/bytes/\(HTTPFetcher.maxBodySize + 1)") }
        #expect(error?.description == "http://127.0.0.1:\(provider.port): the response is larger than 1048576 bytes")
    }

    @Test func anUnansweredOrRefusedRequestFails() throws {
        let provider = try OIDCTestProvider.start()
        try provider.setUnreachable(true)
        let empty = #expect(throws: FetchError.self) { try HTTPFetcher().get(provider.jwksURI) }
        expect(error: empty, contains: "http://127.0.0.1:\(provider.port): ")
        provider.stop()
        let refused = #expect(throws: FetchError.self) { try HTTPFetcher(timeout: 5).get(provider.jwksURI) }
        expect(error: refused, contains: "http://127.0.0.1:\(provider.port): ")
    }

    @Test(arguments: [
        "https://www.googleapis.com/oauth2/v3/certs", "http://127.0.0.1:8080/jwks", "http://127.9.8.7/jwks",
        "http://localhost:1/keys", "http://[::1]:1/keys", "HTTPS://Example.com/keys",
    ])
    func acceptedURLs(_ url: String) throws {
        try HTTPFetcher.validate(url)
    }

    @Test(arguments: [
        ("http://example.com/jwks", "must use https (plain http only to a loopback address)"),
        ("http://128.0.0.1/jwks", "must use https (plain http only to a loopback address)"),
        ("http://127.0.0.1.example.com/jwks", "must use https (plain http only to a loopback address)"),
        ("http://localhost.example.com/jwks", "must use https (plain http only to a loopback address)"),
        ("ftp://127.0.0.1/jwks", "must use https, not ftp"),
        ("file:///etc/passwd", "has no host"),
        ("not a url", "is not a URL"),
    ])
    func refusedURLs(_ url: String, _ message: String) {
        let error = #expect(throws: FetchError.self) { try HTTPFetcher.validate(url) }
        expect(error: error, contains: message)
        // get refuses them the same way, before connecting.
        let fetchError = #expect(throws: FetchError.self) { try HTTPFetcher().get(url) }
        #expect(fetchError == error)
    }
}

/// Expects `error`'s description to contain `text`.
func expect(error: (some CustomStringConvertible)?, contains text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error?.description.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
}
