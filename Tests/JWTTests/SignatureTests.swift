import Foundation
import JSON
import JWT
import Testing

/// Signatures made by the `openssl` command, verified by ``JSONWebToken/verifySignature(with:)``.
@Suite struct SignatureTests {
    static let claims: JSONObject = ["iss": "https://issuer.example", "sub": "user-1", "aud": "client", "exp": 2_000_000_000, "iat": 1_700_000_000]

    static func key(_ test: TestKey, _ extra: JSONObject = [:]) throws -> JSONWebKey {
        try JSONWebKey(json: test.jwk(extra))
    }

    @Test func validRS256() throws {
        let rsa = try TestKey.rsa.get()
        let compact = try rsa.sign(header: ["alg": "RS256", "kid": "r1", "typ": "JWT"], claims: Self.claims)
        let token = try JSONWebToken(compact: compact)
        #expect(token.algorithm == "RS256")
        #expect(token.keyId == "r1")
        #expect(token.claims["sub"] == "user-1")
        try token.verifySignature(with: Self.key(rsa))
        try token.verifySignature(with: Self.key(rsa, ["alg": "RS256", "kid": "r1"]))
    }

    @Test func validES256() throws {
        let ec = try TestKey.ec.get()
        let token = try JSONWebToken(compact: ec.sign(header: ["alg": "ES256"], claims: Self.claims))
        #expect(token.keyId == nil)
        try token.verifySignature(with: Self.key(ec))
        try token.verifySignature(with: Self.key(ec, ["alg": "ES256"]))
    }

    /// A byte of the signature flipped, and claims changed under a valid signature.
    @Test(arguments: ["RS256", "ES256"]) func tamperedTokenIsRefused(algorithm: String) throws {
        let test = try algorithm == "RS256" ? TestKey.rsa.get() : TestKey.ec.get()
        let key = try Self.key(test)
        let parts = try test.sign(header: ["alg": .string(algorithm)], claims: Self.claims).split(separator: ".").map(String.init)
        var signature = Array(try #require(Data(base64Encoded: base64(parts[2]))))
        signature[signature.count / 2] ^= 0x01
        let flipped = try JSONWebToken(compact: parts[0] + "." + parts[1] + "." + base64url(signature))
        #expect(throws: JWTError.invalidSignature) { try flipped.verifySignature(with: key) }

        var claims = Self.claims
        claims["sub"] = "user-2"
        let changed = try JSONWebToken(compact: parts[0] + "." + base64url(JSON.object(claims).serialized()) + "." + parts[2])
        #expect(throws: JWTError.invalidSignature) { try changed.verifySignature(with: key) }

        let other = try JSONWebToken(compact: parts[0] + "." + parts[1] + "." + base64url([UInt8](repeating: 0, count: 64)))
        #expect(throws: JWTError.invalidSignature) { try other.verifySignature(with: key) }
    }

    @Test func algorithmNoneIsRefused() throws {
        let token = try JSONWebToken(compact: unsignedPrefix(header: ["alg": "none"], claims: Self.claims) + ".")
        #expect(throws: JWTError.unsupportedAlgorithm("none")) { try token.verifySignature(with: Self.key(TestKey.rsa.get())) }
    }

    /// The classic confusion: an HMAC keyed with the RSA public key's PEM text must not pass as a signature.
    @Test func hs256WithThePublicKeyAsSecretIsRefused() throws {
        let rsa = try TestKey.rsa.get()
        let pem = String(decoding: rsa.publicKey, as: UTF8.self)
        let input = unsignedPrefix(header: ["alg": "HS256"], claims: Self.claims)
        let mac = try openssl(["dgst", "-sha256", "-binary", "-hmac", pem], input: Array(input.utf8))
        #expect(mac.count == 32)
        let token = try JSONWebToken(compact: input + "." + base64url(mac))
        #expect(throws: JWTError.unsupportedAlgorithm("HS256")) { try token.verifySignature(with: Self.key(rsa)) }
    }

    @Test(arguments: ["RS384", "ES384", "PS256", "EdDSA", "HS512", ""]) func otherAlgorithmsAreRefused(algorithm: String) throws {
        let token = try JSONWebToken(compact: TestKey.rsa.get().sign(header: ["alg": .string(algorithm)], claims: Self.claims))
        #expect(throws: JWTError.unsupportedAlgorithm(algorithm)) { try token.verifySignature(with: Self.key(TestKey.rsa.get())) }
    }

    @Test func keyOfTheWrongTypeIsRefused() throws {
        let rsa = try TestKey.rsa.get()
        let ec = try TestKey.ec.get()
        let rs256 = try JSONWebToken(compact: rsa.sign(header: ["alg": "RS256"], claims: Self.claims))
        let es256 = try JSONWebToken(compact: ec.sign(header: ["alg": "ES256"], claims: Self.claims))
        #expect(throws: JWTError.keyMismatch("RS256 needs an RSA key, not EC")) { try rs256.verifySignature(with: Self.key(ec)) }
        #expect(throws: JWTError.keyMismatch("ES256 needs an EC key, not RSA")) { try es256.verifySignature(with: Self.key(rsa)) }
    }

    @Test func keyStatingAnotherAlgorithmIsRefused() throws {
        let rsa = try TestKey.rsa.get()
        let token = try JSONWebToken(compact: rsa.sign(header: ["alg": "RS256"], claims: Self.claims))
        #expect(throws: JWTError.keyMismatch("the key is for RS512, the token is RS256")) {
            try token.verifySignature(with: Self.key(rsa, ["alg": "RS512"]))
        }
    }

    /// An ES256 signature must be exactly r || s; a DER signature is refused.
    @Test func es256SignatureOfAnotherLengthIsRefused() throws {
        let ec = try TestKey.ec.get()
        let input = unsignedPrefix(header: ["alg": "ES256"], claims: Self.claims)
        let der = try openssl(["dgst", "-sha256", "-sign", "{key}"], key: ec.privateKey, input: Array(input.utf8))
        let token = try JSONWebToken(compact: input + "." + base64url(der))
        #expect(throws: JWTError.invalidSignature) { try token.verifySignature(with: Self.key(ec)) }
    }

    private func base64(_ url: String) -> String {
        let text = url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return text + String(repeating: "=", count: (4 - text.count % 4) % 4)
    }
}
