import Foundation
import JSON
import JWT
import Postgres
import Sodium

/// Access tokens (docs/tokens.md): short-lived RFC 9068 JWTs minted from a session
/// (``accessToken(for:audience:request:)``, from memory: one signature, no database), verified by
/// anyone with the key set, and introspected for the master key (``introspect(_:)``, RFC 7662),
/// which also asks whether the session behind a token still lives. Owns the signing keys.
public final class AccessTokenService: Sendable {
    let core: AuthCore
    /// Sessions behind session tokens given to introspection, and the idle cutoff.
    let sessions: SessionService
    /// `GATEHOUSE_MFA=required`.
    let secondFactors: SecondFactorService
    /// The keys that sign, and the key set.
    public let keys: SigningKeys
    /// The grants behind access tokens issued to OAuth clients, which introspection asks after.
    let oauthGrants: OAuthStore

    init(core: AuthCore, sessions: SessionService, secondFactors: SecondFactorService, pool: Pool, keyBox: SecretBox?) {
        self.core = core
        self.sessions = sessions
        self.secondFactors = secondFactors
        self.keys = SigningKeys(pool: pool, box: keyBox, policy: core.configuration.accessTokens, now: core.now)
        self.oauthGrants = OAuthStore(pool: pool)
    }

    /// The `typ` header of access tokens (RFC 9068 §2.1).
    public static let type = "at+jwt"

    /// The issuer (`iss`): `GATEHOUSE_PUBLIC_URL` without a trailing slash.
    public var issuer: String { core.configuration.accounts.publicURL }

    /// The audiences a token may be asked for, the default first.
    public var audiences: [String] {
        let configured = core.configuration.accessTokens.audiences
        return configured.isEmpty ? [issuer] : configured
    }

    /// A fresh token for the session of `grant` and `audience` (nil: the default). The session must
    /// be usable: 206 with `GATEHOUSE_MFA=required` and no second factor, 205 with
    /// `GATEHOUSE_VERIFY_EMAILS=required` and an unverified email, as everywhere else; 142 for an
    /// audience not configured, or claims too large for a token. Never blocks: the key is in memory.
    public func accessToken(for grant: SessionGrant, audience: String?, request: AuthRequest) throws(AuthError) -> AccessToken {
        try requireUsable(grant, request)
        let audiences = self.audiences
        let audience = audience ?? audiences[0]
        guard audiences.contains(audience) else { throw .unknownAudience(audience) }
        let issuedAt = Int(core.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + core.configuration.accessTokens.lifetime
        let claims = tokenClaims(
            grant, audience: audience, issuedAt: issuedAt, notBefore: issuedAt, expiresAt: expiresAt,
            tokenId: Base64URL.encode(SecureRandom.bytes(16)))
        return AccessToken(
            token: try sign(claims), expiresAt: Date(timeIntervalSince1970: Double(expiresAt)), audience: audience)
    }

    /// `claims` signed by the current key as a JWT of `type` (`typ`), within ``AccessTokenPolicy/maximumBytes``.
    func sign(_ claims: JSONObject, type: String = AccessTokenService.type) throws(AuthError) -> String {
        guard let key = keys.signer() else {
            throw .internalError(
                detail: keys.box == nil
                    ? "access tokens without a secret key (GATEHOUSE_SECRET_KEY)"
                    : "no access-token signing key could be opened: is GATEHOUSE_SECRET_KEY the key they were sealed with?")
        }
        let token: String
        do { token = try JSONWebToken.sign(claims: claims, type: type, with: key) } catch {
            throw .internalError(detail: "signing an access token failed: \(error)")
        }
        guard token.utf8.count <= AccessTokenPolicy.maximumBytes else { throw .accessTokenTooLarge }
        return token
    }

    /// The claims of a token for `grant`, in the contract's order: `iss`, `sub`, `aud`, `iat`,
    /// `nbf`, `exp`, `jti` (each optional one left out when nil), `sid`, `client_id`, `auth_time`,
    /// `amr`, then the user's (``AccessTokenClaims/userClaims(of:guest:fields:)``).
    private func tokenClaims(
        _ grant: SessionGrant, audience: String?, issuedAt: Int, notBefore: Int?, expiresAt: Int, tokenId: String?
    ) -> JSONObject {
        var claims = JSONObject(minimumCapacity: 16)
        claims.appendUnchecked("iss", .string(issuer))
        claims.appendUnchecked("sub", .string(grant.user.objectId))
        if let audience { claims.appendUnchecked("aud", .string(audience)) }
        claims.appendUnchecked("iat", .int(issuedAt))
        if let notBefore { claims.appendUnchecked("nbf", .int(notBefore)) }
        claims.appendUnchecked("exp", .int(expiresAt))
        if let tokenId { claims.appendUnchecked("jti", .string(tokenId)) }
        claims.appendUnchecked("sid", .string(grant.session.objectId))
        claims.appendUnchecked("client_id", .string(core.configuration.accessTokens.clientId))
        claims.appendUnchecked("auth_time", .int(Int(grant.session.createdAt.timeIntervalSince1970.rounded(.down))))
        claims.appendUnchecked("amr", .array(AccessTokenClaims.amr(grant.session.factors).map(JSON.string)))
        // Profile fields never take a registered claim's name (docs/tokens.md); assigning keeps that true regardless.
        let user = AccessTokenClaims.userClaims(
            of: grant.user, guest: AccessTokenClaims.isGuest(grant.session), fields: core.configuration.userFields)
        for (name, value) in user {
            claims[name] = value
        }
        return claims
    }

    /// The session may be used for more than enrolling a second factor or verifying its email.
    private func requireUsable(_ grant: SessionGrant, _ request: AuthRequest?) throws(AuthError) {
        try secondFactors.requireSecondFactor(grant, request)
        try core.requireVerifiedEmail(grant.user)
    }

    // MARK: Introspection

    /// RFC 7662 introspection of an access token or a session token: `{"active": false}` for a
    /// token that is malformed, badly signed, of a revoked key, expired, or whose session has ended
    /// (asked of the database, not the session cache, so an ended session is inactive on every
    /// instance at once), or a session that may not be used; else `{"active": true, …claims, "token_type": "Bearer"}`.
    /// Blocks on the database.
    public func introspect(_ token: String) throws(AuthError) -> JSONObject {
        let inactive: JSONObject = ["active": false]
        let claims: JSONObject?
        if token.utf8.contains(UInt8(ascii: ".")) {
            claims = try introspectAccessToken(token)
        } else {
            claims = try introspectSessionToken(token)
        }
        guard let claims else { return inactive }
        var answer: JSONObject = ["active": true]
        for (name, value) in claims { answer[name] = value }
        answer["token_type"] = "Bearer"
        return answer
    }

    /// The claims of an access token this server signed that is still good, else nil.
    private func introspectAccessToken(_ compact: String) throws(AuthError) -> JSONObject? {
        guard let token = try? JSONWebToken(compact: compact), token.header["typ"]?.stringValue == Self.type,
            let keyId = token.keyId, let key = keys.verifier(keyId: keyId), (try? token.verifySignature(with: key)) != nil
        else { return nil }
        let claims = token.claims
        let time = core.timestamp()
        let seconds = time.timeIntervalSince1970
        let leeway = Double(AccessTokenPolicy.clockLeeway)
        guard claims["iss"]?.stringValue == issuer, let expiry = claims["exp"]?.doubleValue, expiry > seconds,
            (claims["nbf"]?.doubleValue).map({ $0 <= seconds + leeway }) ?? false,
            let sessionId = claims["sid"]?.stringValue, let userId = claims["sub"]?.stringValue
        else { return nil }
        let grantId = claims[OAuthService.grantClaim]?.stringValue
        let live = try core.database { () throws in
            try keys.store.isLive(
                sessionId: sessionId, userId: userId, keyId: keyId, now: time, idleCutoff: sessions.idleCutoff(at: time))
                // A token issued to an OAuth client is good only while its grant lives.
                && (try grantId.map { try oauthGrants.liveGrant(id: $0, now: time, idleCutoff: sessions.idleCutoff(at: time)) != nil } ?? true)
        }
        return live ? claims : nil
    }

    /// What introspection says of a live session token: the claims an access token of it would
    /// carry, but its session's times (`iat` its creation, `exp` its expiry) and no `aud` or
    /// `jti`; nil for no usable session. The session is read from the database, as an access
    /// token's is.
    private func introspectSessionToken(_ token: String) throws(AuthError) -> JSONObject? {
        guard let grant = try sessions.liveGrant(token: token) else { return nil }
        do { try requireUsable(grant, nil) } catch { return nil }
        return tokenClaims(
            grant, audience: nil, issuedAt: Int(grant.session.createdAt.timeIntervalSince1970.rounded(.down)), notBefore: nil,
            expiresAt: Int(grant.session.expiresAt.timeIntervalSince1970.rounded(.down)), tokenId: nil)
    }
}
