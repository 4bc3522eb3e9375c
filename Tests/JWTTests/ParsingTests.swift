import JSON
import JWT
import Testing

/// The compact form: three base64url parts without padding, JSON object header and claims, `alg` a string.
@Suite struct ParsingTests {
    static let header = base64url(#"{"alg":"RS256","kid":"k"}"#)
    static let claims = base64url(#"{"sub":"a"}"#)

    @Test func partsAreRead() throws {
        let token = try JSONWebToken(compact: Self.header + "." + Self.claims + ".AQID")
        #expect(token.header == ["alg": "RS256", "kid": "k"])
        #expect(token.claims == ["sub": "a"])
        #expect(token.algorithm == "RS256")
        #expect(token.keyId == "k")
    }

    @Test(arguments: [
        ("", "1 parts separated by \".\" instead of 3"),
        (header + "." + claims, "2 parts separated by \".\" instead of 3"),
        (header + "." + claims + ".AQID.AQID", "4 parts separated by \".\" instead of 3"),
        (header + "=." + claims + ".AQID", "the header is not base64url without padding"),
        (header + "." + claims + ".AQI=", "the signature is not base64url without padding"),
        (header + "." + claims + ".AQ+D", "the signature is not base64url without padding"),
        (header + "." + claims + ".AQ/D", "the signature is not base64url without padding"),
        (header + "." + claims + ".AQ D", "the signature is not base64url without padding"),
        (header + "." + claims + ".AQIDB", "the signature is not base64url without padding"),  // 4n + 1 characters
        (header + "." + claims + ".AR", "the signature is not base64url without padding"),  // unused bits set
    ] as [(String, String)])
    func malformedEncoding(compact: String, detail: String) {
        #expect(throws: JWTError.malformedToken(detail)) { try JSONWebToken(compact: compact) }
    }

    @Test(arguments: [
        (#"{"alg":"RS256""#, "header", "the header is not JSON"),
        (#"["RS256"]"#, "header", "the header is not a JSON object"),
        (#"{"typ":"JWT"}"#, "header", "the header's \"alg\" is missing or not a string"),
        (#"{"alg":256}"#, "header", "the header's \"alg\" is missing or not a string"),
        (#"{"alg":"RS256","kid":7}"#, "header", "the header's \"kid\" is not a string"),
        ("not json", "claims", "the claims set is not JSON"),
        (#""sub""#, "claims", "the claims set is not a JSON object"),
    ])
    func malformedJSON(text: String, part: String, detail: String) {
        let compact = part == "header" ? base64url(text) + "." + Self.claims + ".AQID" : Self.header + "." + base64url(text) + ".AQID"
        #expect(throws: JWTError.malformedToken(detail)) { try JSONWebToken(compact: compact) }
    }

    @Test func overlongTokenIsRefused() {
        let compact = Self.header + "." + base64url(String(repeating: "a", count: JSONWebToken.maxLength)) + ".AQID"
        #expect(throws: JWTError.malformedToken("longer than 16384 characters")) { try JSONWebToken(compact: compact) }
    }

    @Test func descriptionsAreSentences() {
        #expect(JWTError.malformedToken("x").description == "Malformed token: x.")
        #expect(JWTError.unsupportedAlgorithm("none").description == "Unsupported token algorithm \"none\" (only RS256 and ES256 are accepted).")
        #expect(JWTError.wrongClaim("aud").description == "The token's \"aud\" claim is not the expected value.")
    }
}
