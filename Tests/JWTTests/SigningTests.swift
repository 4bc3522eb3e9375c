import Foundation
import JSON
import JWT
import TestSupport
import Testing

/// Tokens signed by ``JSONWebToken/sign(claims:type:with:)``: verified by the `openssl` command
/// (an implementation independent of the code under test) and by ``JSONWebToken/verifySignature(with:)``.
@Suite struct SigningTests {
    static let claims: JSONObject = ["iss": "https://issuer.example", "sub": "user-1", "aud": "api", "exp": 2_000_000_000]

    @Test(arguments: SigningAlgorithm.allCases)
    func signedTokenVerifiesWithTheOpenSSLCommand(_ algorithm: SigningAlgorithm) throws {
        let key = try JSONWebSigningKey(generating: algorithm) { _ in "k1" }
        let compact = try JSONWebToken.sign(claims: Self.claims, type: "at+jwt", with: key)
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        // The header in the order the contract writes it.
        #expect(Base64URL.decode(parts[0]).map { String(decoding: $0, as: UTF8.self) }
            == #"{"alg":"\#(algorithm.rawValue)","typ":"at+jwt","kid":"k1"}"#)

        let publicPEM = try openssl(["pkey", "-inform", "DER", "-in", "{key}", "-pubout"], key: key.derEncoded())
        var signature = try #require(Base64URL.decode(parts[2]))
        if algorithm == .es256 {
            #expect(signature.count == 64)
            signature = derECDSA(raw: signature)
        }
        let directory = TemporaryDirectory.make(prefix: "jws")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(signature).write(to: URL(fileURLWithPath: directory + "/signature"))
        let verdict = try openssl(
            ["dgst", "-sha256", "-verify", "{key}", "-signature", directory + "/signature"], key: publicPEM,
            input: Array((parts[0] + "." + parts[1]).utf8))
        #expect(String(decoding: verdict, as: UTF8.self).contains("Verified OK"))
    }

    @Test(arguments: SigningAlgorithm.allCases)
    func signedTokenVerifiesWithThePublishedKey(_ algorithm: SigningAlgorithm) throws {
        let key = try JSONWebSigningKey(generating: algorithm) { _ in "k2" }
        let set = try JSONWebKeySet(data: JSON.object(["keys": [.object(key.publicKey.json)]]).serialized())
        let token = try JSONWebToken(compact: JSONWebToken.sign(claims: Self.claims, type: "at+jwt", with: key))
        #expect(token.algorithm == algorithm.rawValue)
        #expect(token.header["typ"] == "at+jwt")
        #expect(token.claims == Self.claims)
        try token.verifySignature(with: #require(set.key(id: token.keyId)))

        // Another key of the same algorithm and id does not verify it.
        let other = try JSONWebSigningKey(generating: algorithm) { _ in "k2" }
        #expect(throws: JWTError.invalidSignature) { try token.verifySignature(with: other.publicKey) }
    }

    /// The published half has the public members only, in the form the `openssl` command gives.
    @Test func publicKeyMembers() throws {
        let ec = try JSONWebSigningKey(generating: .es256) { _ in "e" }
        #expect(ec.publicKey.json.keys == ["kty", "crv", "x", "y", "kid", "alg", "use"])
        #expect(ec.publicKey.json["use"] == "sig")
        let spki = try openssl(["pkey", "-inform", "DER", "-in", "{key}", "-pubout", "-outform", "DER"], key: ec.derEncoded())
        let point = Array(spki.suffix(64))
        #expect(ec.publicKey.json["x"]?.stringValue == Base64URL.encode(point[..<32]))
        #expect(ec.publicKey.json["y"]?.stringValue == Base64URL.encode(point[32...]))

        let rsa = try JSONWebSigningKey(generating: .rs256) { _ in "r" }
        #expect(rsa.publicKey.json.keys == ["kty", "n", "e", "kid", "alg", "use"])
        #expect(rsa.publicKey.json["e"] == "AQAB")
        #expect(Base64URL.decode(rsa.publicKey.json["n"]?.stringValue ?? "")?.count == 256)
    }

    /// A key read back from its DER encoding signs for the same public key; read as the other
    /// algorithm's, it is refused.
    @Test(arguments: SigningAlgorithm.allCases)
    func derEncodingReadsBack(_ algorithm: SigningAlgorithm) throws {
        let key = try JSONWebSigningKey(generating: algorithm) { _ in "k3" }
        let read = try JSONWebSigningKey(der: key.derEncoded(), algorithm: algorithm, keyId: "k3")
        #expect(read.publicKey.json == key.publicKey.json)
        let token = try JSONWebToken(compact: JSONWebToken.sign(claims: Self.claims, type: nil, with: read))
        #expect(token.header.keys == ["alg", "kid"])
        try token.verifySignature(with: key.publicKey)

        let other: SigningAlgorithm = algorithm == .es256 ? .rs256 : .es256
        #expect(throws: JWTError.self) { try JSONWebSigningKey(der: key.derEncoded(), algorithm: other, keyId: "k3") }
    }

    /// The thumbprint input of RFC 7638 §3.1's example key hashes to the RFC's thumbprint.
    @Test func thumbprintOfTheRFCExample() throws {
        let key = try JSONWebKey(json: [
            "kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        ])
        let digest = try openssl(["dgst", "-sha256", "-binary"], input: key.thumbprintInput)
        #expect(Base64URL.encode(digest) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    /// The key id is chosen from the public half without `kid`.
    @Test func keyIdFromThePublicHalf() throws {
        var seen: JSONObject = [:]
        let key = try JSONWebSigningKey(generating: .es256) { unnamed in
            seen = unnamed.json
            return "from-\(unnamed.keyType)"
        }
        #expect(key.keyId == "from-EC")
        #expect(seen["kid"] == nil && seen["x"] == key.publicKey.json["x"])
    }
}

/// r || s (32 bytes each) as the DER `SEQUENCE { INTEGER r, INTEGER s }` openssl verifies.
func derECDSA(raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[..<32]) + integer(raw[32...])
    return [0x30, UInt8(body.count)] + body
}
