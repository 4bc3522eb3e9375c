import OneTimeCodes
import Foundation
import JSON
import Postgres
import Sodium
import Signatures

/// TOTP second factors with recovery codes (docs/second-factors.md), in Parse's `authData.mfa` shapes:
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
    /// All need recent authentication; removal also a session made with the second factor (or the
    /// master key), so a stolen password and session cannot take it off; enrolment, for a user
    /// who has a second factor already, a session made with one (``checkEnrolment(userId:caller:request:)``).
    /// With `GATEHOUSE_MFA=required` an enrolment ends the user's other sessions
    /// (``sessionsEndedByEnrolment(userId:caller:)``). The code of a regeneration is counted
    /// against the account as a log-in's is.
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
            if try core.database({ () throws in try totp.remove(userId: userId, now: core.timestamp(), events: core.events) }) {
                core.notices.send(.twoStepDisabled, about: current, request: request, at: core.timestamp())
            }
            return nil
        }
        let time = core.timestamp()
        if mfa["recovery"]?.boolValue == true {
            guard let enrolment = try core.database({ () throws in try totp.enrolment(userId: userId) }) else { throw .invalidMFAToken }
            // A hit here gives ten codes that log in with the password: counted as a log-in's code is.
            try core.countedCheck(userId: userId, request: request, isWrong: Self.isWrongCode) { () throws(AuthError) in
                try takeCode(mfa["token"]?.stringValue ?? "", userId: userId, enrolment: enrolment, at: time)
            }
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
        try checkEnrolment(userId: userId, caller: caller, request: request)
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
                upgradeSession: upgrade, endingSessions: sessionsEndedByEnrolment(userId: userId, caller: caller), now: time,
                events: core.events)
        }
        core.notices.send(.twoStepEnabled, about: current, request: request, at: time)
        return ["mfa": ["recovery": .array(codes.map(JSON.string))]]
    }

    /// The code in `logIn`'s or `logInWith`'s `authData.mfa` (`{token}`); -1 without one. A token
    /// that is not a string is no code of any user's.
    static func code(in mfa: JSON?) throws(AuthError) -> String {
        guard case .object(let object)? = mfa, let token = object["token"], token != .null else { throw .secondFactorMissing }
        return token.stringValue ?? ""
    }

    /// Whether `error` is the answer to a wrong code (TOTP or recovery), which counts as a failed log-in.
    static func isWrongCode(_ error: AuthError) -> Bool {
        error == .invalidMFAToken || error == .invalidRecoveryCode
    }

    /// Checks and uses up `code` (``code(in:)``) of a user enrolled with `sealedSecret`: 141 for
    /// a wrong one. The caller has counted the attempt against the account before (at `logIn`, in
    /// the log-in's own count; elsewhere through ``AuthCore/countedCheck(userId:request:isWrong:_:)``),
    /// so a wrong code is a failed log-in for the limits and lockout. Returns whether the code was
    /// a recovery code (the caller sends its notice once the log-in has its session).
    @discardableResult
    func checkSecondFactor(_ code: String, userId: String, sealedSecret: [UInt8], at time: Date) throws(AuthError) -> Bool {
        // The step is checked against the stored one by the conditional write itself.
        try takeCode(code, userId: userId, enrolment: TOTPStore.Enrolment(sealedSecret: sealedSecret, lastStep: .min), at: time)
    }

    /// Uses up `token`: a recovery code of the user's (``recoveryCharacters(_:)``; 141 `Invalid
    /// recovery code.` when the user has no such code), or the code of the enrolment's secret for
    /// a step within the window and after the last one accepted (141 `Invalid MFA token` otherwise).
    /// Returns whether it was a recovery code.
    @discardableResult
    private func takeCode(_ token: String, userId: String, enrolment: TOTPStore.Enrolment, at time: Date) throws(AuthError) -> Bool {
        if let characters = Self.recoveryCharacters(token) {
            for digest in Self.recoveryDigests(userId: userId, characters: characters) {
                if try core.database({ () throws in try totp.takeRecoveryCode(userId: userId, digest: digest) }) { return true }
            }
            throw .invalidRecoveryCode
        }
        guard let box = totpBox, let secret = box.open(enrolment.sealedSecret) else {
            throw .internalError(detail: "a TOTP secret cannot be opened: GATEHOUSE_SECRET_KEY is not the key it was sealed with")
        }
        guard let step = TOTP(secret: secret).verify(token, at: time), step > enrolment.lastStep,
            try core.database({ () throws in try totp.takeStep(userId: userId, step: step) })
        else { throw .invalidMFAToken }
        return false
    }

    /// 206 `Second factor enrolment required.` for a session made without a second factor while
    /// `GATEHOUSE_MFA=required`; the master key and requests without a session pass.
    func requireSecondFactor(_ caller: SessionGrant?, _ request: AuthRequest?) throws(AuthError) {
        guard core.configuration.mfa == .required, request?.isMaster != true, let caller, !caller.session.hasSecondFactor else { return }
        throw .secondFactorEnrolmentRequired
    }

    /// Lets the enrolment of a second factor (TOTP, a passkey) for the user `userId` go ahead for
    /// the master key, a session made with a second factor, or a user who has none yet (who may
    /// enrol from any session, as `GATEHOUSE_MFA=required` asks). Otherwise 206 `Second factor
    /// required.`: a password or a provider alone may not add a factor beside the user's own and
    /// so make itself a session with a second factor.
    func checkEnrolment(userId: String, caller: SessionGrant?, request: AuthRequest) throws(AuthError) {
        if request.isMaster || caller?.session.hasSecondFactor == true { return }
        guard try core.database({ () throws in try totp.secondFactors(userId: userId) }).isEmpty else {
            throw .secondFactorSessionRequired
        }
    }

    /// The sessions an enrolment for the user `userId` ends with `GATEHOUSE_MFA=required`: every
    /// one but the enrolling caller's, since those made before it answered to less than the
    /// account now asks; nil (none) in the other modes, where the client may offer
    /// `revokeOtherSessions`.
    func sessionsEndedByEnrolment(userId: String, caller: SessionGrant?) -> SessionStore.Ending? {
        guard core.configuration.mfa == .required else { return nil }
        return SessionStore.Ending(keeping: caller.flatMap { $0.user.objectId == userId ? $0.session.objectId : nil })
    }

    /// Whether the user has TOTP (`User.authData.mfa`).
    func hasTOTP(userId: String) throws(AuthError) -> Bool {
        try core.database { () throws in try totp.secondFactors(userId: userId).contains("totp") }
    }

    // MARK: Recovery codes

    /// The alphabet of recovery codes: digits and lower-case letters without the look-alikes `0`,
    /// `1`, `i`, `l` and `o` (and `u`, as in Crockford's base 32), so that a code copied by hand
    /// or read aloud comes back right.
    static let recoveryAlphabet = Array("23456789abcdefghjkmnpqrstvwxyz".utf8)

    /// Ten new recovery codes (two groups of five characters, about 49 bits) and their digests.
    static func newRecoveryCodes(userId: String) -> (codes: [String], digests: [[UInt8]]) {
        let codes = (0..<recoveryCodeCount).map { _ in
            SecureRandom.string(length: 5, alphabet: recoveryAlphabet) + "-" + SecureRandom.string(length: 5, alphabet: recoveryAlphabet)
        }
        return (codes, codes.map { recoveryDigest(userId: userId, code: $0) })
    }

    /// What is stored of a recovery code: SHA-256 of the user id, a colon and the code as issued
    /// (`abcde-23456`; the same code of two users is stored differently).
    static func recoveryDigest(userId: String, code: String) -> [UInt8] {
        SHA256.digest("\(userId):\(code)")
    }

    /// The ten characters of `token` when it has a recovery code's form: ten ASCII letters and
    /// digits in any case, with or without the dash after the fifth (TOTP codes are six digits);
    /// nil otherwise.
    static func recoveryCharacters(_ token: String) -> [UInt8]? {
        var bytes = Array(token.utf8)
        if bytes.count == 11, bytes[5] == UInt8(ascii: "-") { bytes.remove(at: 5) }
        guard bytes.count == 10, bytes.allSatisfy(SecureRandom.objectIdAlphabet.contains) else { return nil }
        return bytes
    }

    /// The digests a recovery code typed as `characters` may be stored under: its lower-case form
    /// (how codes from ``recoveryAlphabet`` are issued, so they match in any case), then, when it
    /// differs, the case as typed: codes issued in mixed case from `[A-Za-z0-9]`, whose digests
    /// keep their case, still work exactly as issued.
    static func recoveryDigests(userId: String, characters: [UInt8]) -> [[UInt8]] {
        func code(_ bytes: [UInt8]) -> String { String(decoding: bytes[..<5] + [UInt8(ascii: "-")] + bytes[5...], as: UTF8.self) }
        let typed = code(characters)
        let lowerCase = typed.lowercased()
        return [recoveryDigest(userId: userId, code: lowerCase)] + (typed == lowerCase ? [] : [recoveryDigest(userId: userId, code: typed)])
    }
}
