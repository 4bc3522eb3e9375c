import OneTimeCodes
import Foundation
import JSON
import Postgres
import Sodium

/// TOTP second factors with recovery codes (contract: mfa.md), in Parse's `authData.mfa` shapes:
/// enrolment, regeneration of recovery codes and removal through `updateUser`, the code at
/// `logIn` and provider log-ins, and the `GATEHOUSE_MFA=required` check. Every code works once:
/// TOTP codes through the enrolment's last accepted step, recovery codes by being deleted, each
/// a single conditional write. Owns the TOTP store and the key that seals secrets.
public final class SecondFactorService: Sendable {
    let core: AuthCore
    /// Users' TOTP enrolments and recovery codes.
    let totp: TOTPStore
    /// Seals TOTP secrets (a key from `GATEHOUSE_SECRET_KEY`); nil: enrolment fails with an internal error.
    let totpBox: SecretBox?

    init(core: AuthCore, pool: Pool, totpBox: SecretBox?) {
        self.core = core
        self.totp = TOTPStore(pool: pool)
        self.totpBox = totpBox
    }

    /// Recovery codes given at enrolment and regeneration.
    static let recoveryCodeCount = 10
    /// The fewest base32 characters of a secret to enrol (160 bits).
    static let minimumSecretCharacters = 32

    /// `updateUser`'s `authData.mfa` for the user `current` (the owner's or the master key's
    /// request, already checked): `null` removes TOTP; `{secret, token}` enrols (replacing an
    /// earlier enrolment); `{token, recovery: true}` replaces the recovery codes. Returns the
    /// `authDataResponse` (the new recovery codes), nil after a removal.
    ///
    /// All need recent authentication; removal and re-enrolment also a session made with the
    /// second factor (or the master key), so a stolen password and session cannot take it off.
    func changeTOTP(
        _ value: JSON, current: User, storedHash: String?, currentPassword: String?, caller: SessionGrant?, request: AuthRequest
    ) throws(AuthError) -> JSONObject? {
        guard core.configuration.mfa != .off else { throw .unsupportedAuthentication }
        try core.checkRecentAuthentication(caller, currentPassword, storedHash, current, request)
        let userId = current.objectId
        let provenSecondFactor = request.isMaster || caller?.session.hasSecondFactor == true
        guard case .object(let mfa) = value else {
            guard value == .null else { throw .invalidMFASecret }
            guard provenSecondFactor else { throw .recentLoginRequired }
            _ = try core.database { () throws in try totp.remove(userId: userId) }
            return nil
        }
        let time = core.timestamp()
        if mfa["recovery"]?.boolValue == true {
            guard let enrolment = try core.database({ () throws in try totp.enrolment(userId: userId) }) else { throw .invalidMFAToken }
            try takeCode(mfa["token"]?.stringValue ?? "", userId: userId, enrolment: enrolment, at: time)
            let (codes, digests) = Self.newRecoveryCodes(userId: userId)
            guard try core.database({ () throws in try totp.replaceRecoveryCodes(userId: userId, digests: digests) }) else {
                throw .invalidMFAToken
            }
            return ["mfa": ["recovery": .array(codes.map(JSON.string))]]
        }

        guard let secretText = mfa["secret"]?.stringValue, secretText.count >= Self.minimumSecretCharacters,
            let secret = Base32.decode(secretText)
        else { throw .invalidMFASecret }
        guard let step = TOTP(secret: secret).verify(mfa["token"]?.stringValue ?? "", at: time) else { throw .invalidMFAToken }
        guard let box = totpBox else { throw .internalError(detail: "TOTP enrolment without a secret key (GATEHOUSE_SECRET_KEY)") }
        if try core.database({ () throws in try totp.enrolment(userId: userId) }) != nil, !provenSecondFactor {
            throw .recentLoginRequired
        }
        let (codes, digests) = Self.newRecoveryCodes(userId: userId)
        // The owner's session has just shown the second factor: it counts as made with it.
        let upgrade = caller.flatMap { caller -> (objectId: String, factors: String)? in
            guard caller.user.objectId == userId, !caller.session.factors.contains("totp") else { return nil }
            let factors = JSON.array((caller.session.factors + ["totp"]).map(JSON.string))
            return (caller.session.objectId, String(decoding: factors.serialized(), as: UTF8.self))
        }
        try core.database { () throws in
            try totp.enrol(
                userId: userId, sealedSecret: box.seal(secret), step: step, recoveryDigests: digests,
                upgradeSession: upgrade, now: time)
        }
        return ["mfa": ["recovery": .array(codes.map(JSON.string))]]
    }

    /// Checks `logIn`'s `authData.mfa` for a user enrolled with `sealedSecret`: -1 without a
    /// code, 141 for a wrong one (which counts as a failed log-in for lockout, as a wrong
    /// password does; the attempt has been counted by the rate limits already).
    func checkSecondFactor(_ mfa: JSON?, userId: String, sealedSecret: [UInt8], at time: Date) throws(AuthError) {
        guard case .object(let object)? = mfa, let token = object["token"], token != .null else { throw .secondFactorMissing }
        do {
            // The step is checked against the stored one by the conditional write itself.
            try takeCode(token.stringValue ?? "", userId: userId, enrolment: TOTPStore.Enrolment(sealedSecret: sealedSecret, lastStep: .min), at: time)
        } catch .invalidMFAToken {
            try core.recordFailedLogIn(userId: userId, at: time)
            throw .invalidMFAToken
        }
    }

    /// Uses up `token`: a recovery code of the user's (`abcde-12345`), or the code of the
    /// enrolment's secret for a step within the window and after the last one accepted; 141 otherwise.
    private func takeCode(_ token: String, userId: String, enrolment: TOTPStore.Enrolment, at time: Date) throws(AuthError) {
        if Self.isRecoveryCode(token) {
            let digest = Self.recoveryDigest(userId: userId, code: token)
            guard try core.database({ () throws in try totp.takeRecoveryCode(userId: userId, digest: digest) }) else {
                throw .invalidMFAToken
            }
            return
        }
        guard let box = totpBox, let secret = box.open(enrolment.sealedSecret) else {
            throw .internalError(detail: "a TOTP secret cannot be opened: GATEHOUSE_SECRET_KEY is not the key it was sealed with")
        }
        guard let step = TOTP(secret: secret).verify(token, at: time), step > enrolment.lastStep,
            try core.database({ () throws in try totp.takeStep(userId: userId, step: step) })
        else { throw .invalidMFAToken }
    }

    /// 206 `Second factor enrolment required.` for a session made without a second factor while
    /// `GATEHOUSE_MFA=required`; the master key and requests without a session pass.
    func requireSecondFactor(_ caller: SessionGrant?, _ request: AuthRequest?) throws(AuthError) {
        guard core.configuration.mfa == .required, request?.isMaster != true, let caller, !caller.session.hasSecondFactor else { return }
        throw .secondFactorEnrolmentRequired
    }

    /// Whether the user has TOTP (`User.authData.mfa`).
    func hasTOTP(userId: String) throws(AuthError) -> Bool {
        try core.database { () throws in try totp.secondFactors(userId: userId).contains("totp") }
    }

    // MARK: Recovery codes

    /// The alphabet of recovery codes: `[A-Za-z0-9]`.
    static let recoveryAlphabet = SecureRandom.objectIdAlphabet

    /// Ten new recovery codes (two groups of five characters, about 59 bits) and their digests.
    static func newRecoveryCodes(userId: String) -> (codes: [String], digests: [[UInt8]]) {
        let codes = (0..<recoveryCodeCount).map { _ in
            SecureRandom.string(length: 5, alphabet: recoveryAlphabet) + "-" + SecureRandom.string(length: 5, alphabet: recoveryAlphabet)
        }
        return (codes, codes.map { recoveryDigest(userId: userId, code: $0) })
    }

    /// What is stored of a recovery code: SHA-256 of the user id, a colon and the code (the
    /// same code of two users is stored differently).
    static func recoveryDigest(userId: String, code: String) -> [UInt8] {
        SHA256.digest("\(userId):\(code)")
    }

    /// Whether `token` has a recovery code's form (TOTP codes are digits only).
    static func isRecoveryCode(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        return bytes.count == 11 && bytes[5] == UInt8(ascii: "-")
            && bytes.enumerated().allSatisfy { $0.offset == 5 || recoveryAlphabet.contains($0.element) }
    }
}
