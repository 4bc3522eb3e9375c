import JSON
import JWT
import Testing

/// ``JSONWebKey`` and ``JSONWebKeySet``: supported keys are checked when read; others are skipped in a set.
@Suite struct KeySetTests {
    static func set(_ keys: [JSONObject]) throws -> JSONWebKeySet {
        try JSONWebKeySet(data: JSON.object(["keys": .array(keys.map(JSON.object))]).serialized())
    }

    @Test func unsupportedKeysAreSkipped() throws {
        let rsa = try TestKey.rsa.get()
        let ec = try TestKey.ec.get()
        let set = try Self.set([
            ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed"],
            rsa.jwk(["kid": "r1", "alg": "RS256", "use": "sig"]),
            ["kty": "EC", "crv": "P-384", "x": "AQID", "y": "AQID", "kid": "p384"],
            ["kty": "oct", "k": "AQID", "kid": "hmac"],
            ec.jwk(["kid": "e1"]),
        ])
        #expect(set.keys.map(\.keyId) == ["r1", "e1"])
        #expect(set.keys.map(\.keyType) == ["RSA", "EC"])
        #expect(set.keys.map(\.algorithm) == ["RS256", nil])
        #expect(set.key(id: "e1")?.keyType == "EC")
        #expect(set.key(id: "ed") == nil)
        #expect(set.key(id: nil) == nil)

        let token = try JSONWebToken(compact: rsa.sign(header: ["alg": "RS256", "kid": "r1"], claims: ["sub": "a"]))
        try token.verifySignature(with: #require(set.key(id: token.keyId)))
    }

    @Test func aSetOfOneKeyServesATokenWithoutKid() throws {
        let set = try Self.set([TestKey.ec.get().jwk(["kid": "e1"])])
        #expect(set.key(id: nil)?.keyId == "e1")
        #expect(try Self.set([]).keys.isEmpty)
    }

    @Test(arguments: [
        ("[]", "\"keys\" is missing or not an array"),
        (#"{"keys":{}}"#, "\"keys\" is missing or not an array"),
        (#"{"keys":["RSA"]}"#, "a key is not an object"),
    ])
    func malformedSet(text: String, detail: String) {
        #expect(throws: JWTError.invalidKeySet(detail)) { try JSONWebKeySet(data: Array(text.utf8)) }
    }

    @Test func setThatIsNotJSON() {
        #expect {
            try JSONWebKeySet(data: Array("{\"keys\":".utf8))
        } throws: { error in
            guard case .invalidKeySet(let detail) = error as? JWTError else { return false }
            return detail.hasPrefix("not JSON")
        }
    }

    @Test func malformedKeyOfASupportedTypeMakesTheSetInvalid() throws {
        var key = try TestKey.rsa.get().jwk
        key["n"] = "AQ=="
        #expect(throws: JWTError.invalidKey("\"n\" is not base64url without padding")) { try Self.set([key]) }
    }

    @Test func invalidKeys() throws {
        let rsa = try TestKey.rsa.get().jwk
        let ec = try TestKey.ec.get().jwk
        func refused(_ key: JSONObject, _ error: JWTError) {
            #expect(throws: error) { try JSONWebKey(json: key) }
        }
        refused(["n": rsa["n"]!, "e": "AQAB"], .invalidKey("\"kty\" is missing or not a string"))
        refused(["kty": "RSA", "e": "AQAB"], .invalidKey("\"n\" is missing or not a string"))
        refused(["kty": "RSA", "n": rsa["n"]!, "e": ""], .invalidKey("\"e\" is not base64url without padding"))
        refused(["kty": "RSA", "n": rsa["n"]!, "e": "AQ"], .invalidKey("the RSA exponent is not odd and above 1"))  // e = 1
        refused(["kty": "RSA", "n": rsa["n"]!, "e": "AQAA"], .invalidKey("the RSA exponent is not odd and above 1"))  // even
        var evenModulus = try #require(rsa["n"]?.stringValue)
        evenModulus = String(evenModulus.dropLast()) + "A"  // the last sextet 000000: bit 0 cleared, length unchanged
        refused(["kty": "RSA", "n": .string(evenModulus), "e": "AQAB"], .invalidKey("the RSA modulus is even"))
        refused(["kty": "RSA", "n": rsa["n"]!, "e": "AQAAAAAAAAAB"], .invalidKey("an RSA exponent above 64 bits"))  // 2^64 + 1
        refused(["kty": "RSA", "n": rsa["n"]!, "e": "AQAB", "kid": 3], .invalidKey("\"kid\" is not a string"))
        refused(["kty": "RSA", "n": rsa["n"]!, "e": "AQAB", "alg": ["RS256"]], .invalidKey("\"alg\" is not a string"))
        refused(["kty": "EC", "x": ec["x"]!, "y": ec["y"]!], .invalidKey("\"crv\" is missing or not a string"))
        refused(["kty": "EC", "crv": "P-256", "x": ec["x"]!, "y": "AQID"], .invalidKey("P-256 \"x\" and \"y\" must be 32 bytes each"))
        // x and y swapped: almost surely not a point on the curve.
        refused(["kty": "EC", "crv": "P-256", "x": ec["y"]!, "y": ec["x"]!], .invalidKey("the EC point is not on P-256"))
        refused(["kty": "EC", "crv": "secp256k1", "x": ec["x"]!, "y": ec["y"]!], .unsupportedKey("EC curve \"secp256k1\""))
        refused(["kty": "oct", "k": "AQID"], .unsupportedKey("\"kty\" \"oct\""))
    }

    @Test func rsaKeysUnder2048BitsAreRefused() throws {
        let small = try TestKey(.rsa(bits: 1024))
        #expect(throws: JWTError.invalidKey("RSA modulus of 1024 bits (at least 2048 required)")) { try JSONWebKey(json: small.jwk) }
    }
}
