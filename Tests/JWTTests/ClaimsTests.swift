import Foundation
import JSON
import JWT
import Testing

/// ``JSONWebToken/checkClaims(issuer:audiences:subject:nonce:now:leeway:)``: the claims are read
/// before and apart from the signature, so these tokens carry a placeholder one.
@Suite struct ClaimsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let valid: JSONObject = [
        "iss": "https://issuer.example", "aud": "client", "sub": "user-1", "exp": 1_800_000_600, "iat": 1_799_999_990, "nonce": "n-1",
    ]

    static func check(_ changes: JSONObject, removing: [String] = [], nonce: String? = "n-1") throws {
        var claims = valid
        for (key, value) in changes { claims[key] = value }
        let members = claims.filter { !removing.contains($0.0) }
        let kept = JSONObject(uniqueKeys: members.map(\.0), values: members.map(\.1))
        let token = try JSONWebToken(compact: unsignedPrefix(header: ["alg": "RS256"], claims: kept) + ".c2ln")
        try token.checkClaims(issuer: "https://issuer.example", audiences: ["client", "other-client"], subject: "user-1", nonce: nonce, now: now)
    }

    @Test func validClaimsPass() throws {
        try Self.check([:])
        try Self.check([:], removing: ["nonce"], nonce: nil)
        try Self.check(["nonce": "unasked"], nonce: nil)
        try Self.check(["aud": ["someone-else", "other-client"]])
        try Self.check(["exp": 1_800_000_000.5, "iat": 1_799_999_000.25])
    }

    @Test func wrongIssuer() {
        #expect(throws: JWTError.wrongClaim("iss")) { try Self.check(["iss": "https://issuer.example/"]) }
        #expect(throws: JWTError.missingClaim("iss")) { try Self.check([:], removing: ["iss"]) }
        #expect(throws: JWTError.missingClaim("iss")) { try Self.check(["iss": 1]) }
    }

    @Test func wrongAudience() {
        #expect(throws: JWTError.wrongClaim("aud")) { try Self.check(["aud": "someone-else"]) }
        #expect(throws: JWTError.wrongClaim("aud")) { try Self.check(["aud": ["someone-else", "a third"]]) }
        #expect(throws: JWTError.missingClaim("aud")) { try Self.check(["aud": []]) }
        #expect(throws: JWTError.missingClaim("aud")) { try Self.check(["aud": ["client", 1]]) }
        #expect(throws: JWTError.missingClaim("aud")) { try Self.check([:], removing: ["aud"]) }
    }

    /// Expiry at now − 60 s is past the default leeway; a minute less is within it.
    @Test func expiry() throws {
        #expect(throws: JWTError.expired) { try Self.check(["exp": 1_799_999_940]) }
        #expect(throws: JWTError.expired) { try Self.check(["exp": 1_799_999_000.5]) }
        try Self.check(["exp": 1_799_999_941])
        try Self.check(["exp": 1_799_999_999.5])
        #expect(throws: JWTError.missingClaim("exp")) { try Self.check([:], removing: ["exp"]) }
        #expect(throws: JWTError.missingClaim("exp")) { try Self.check(["exp": "1800000600"]) }
    }

    @Test func issuedInTheFuture() throws {
        #expect(throws: JWTError.issuedInFuture) { try Self.check(["iat": 1_800_000_061]) }
        try Self.check(["iat": 1_800_000_060])
        #expect(throws: JWTError.missingClaim("iat")) { try Self.check([:], removing: ["iat"]) }
    }

    @Test func wrongSubject() {
        #expect(throws: JWTError.wrongClaim("sub")) { try Self.check(["sub": "user-2"]) }
        #expect(throws: JWTError.missingClaim("sub")) { try Self.check([:], removing: ["sub"]) }
    }

    @Test func nonceWhenRequired() {
        #expect(throws: JWTError.wrongClaim("nonce")) { try Self.check(["nonce": "n-2"]) }
        #expect(throws: JWTError.missingClaim("nonce")) { try Self.check([:], removing: ["nonce"]) }
    }

    @Test func leewayIsASetting() throws {
        let token = try JSONWebToken(compact: unsignedPrefix(header: ["alg": "RS256"], claims: Self.valid) + ".c2ln")
        let later = Self.now.addingTimeInterval(700)
        #expect(throws: JWTError.expired) {
            try token.checkClaims(issuer: "https://issuer.example", audiences: ["client"], subject: "user-1", nonce: nil, now: later)
        }
        try token.checkClaims(issuer: "https://issuer.example", audiences: ["client"], subject: "user-1", nonce: nil, now: later, leeway: 120)
    }
}
