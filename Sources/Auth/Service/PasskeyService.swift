import Foundation
import JSON
import Postgres
import Sodium
import Signatures
import WebAuthn

/// Passkeys (docs/second-factors.md): registration and log-in options, registration,
/// log-in, the list and removal. Challenges are stored as digests and taken once; every failed
/// check answers the contract's single message, the specific reason going to the log. Owns the
/// passkeys' store and the two batchers of passkey log-ins.
///
/// A passkey whose authenticator verified its user (the UV flag: PIN, biometrics) is a second
/// factor; one that proves only presence (a touch) logs in as a single factor
/// (`passkey-unverified`) and is not counted among the user's second factors.
public final class PasskeyService: Sendable {
    let core: AuthCore
    /// Who may enrol a passkey, the sessions an enrolment ends, and `GATEHOUSE_MFA=required`.
    let secondFactors: SecondFactorService
    /// Passkeys and challenges.
    let passkeyStore: PasskeyStore
    /// Passkey log-ins, coalesced across request threads in their two statements: challenges
    /// taken and passkeys read, then (after each signature is checked) counters moved and
    /// sessions started.
    let passkeyLookups: LookupBatcher<PasskeyStore.LogIn, PasskeyStore.LogInLookup>
    let passkeyLogIns: LookupBatcher<PasskeyStore.CounterMove, Bool>

    init(core: AuthCore, secondFactors: SecondFactorService, pool: Pool) {
        self.core = core
        self.secondFactors = secondFactors
        let passkeys = PasskeyStore(pool: pool)
        self.passkeyStore = passkeys
        self.passkeyLookups = core.batcher { [now = core.now] in try passkeys.take($0, now: now()) }
        self.passkeyLogIns = core.batcher { [events = core.events] in
            Dictionary(uniqueKeysWithValues: try passkeys.logIn($0, events: events).map { ($0, true) })
        }
    }

    /// The relying party: the configured one, or the host and origin of the public URL.
    var relyingParty: RelyingParty {
        core.configuration.relyingParty
            ?? AuthConfiguration.relyingParty(publicURL: core.configuration.accounts.publicURL, name: "Gatehouse")
    }

    /// Options for registering a passkey of the caller (recent authentication required, and a
    /// session made with a second factor when the user has one:
    /// ``SecondFactorService/checkEnrolment(userId:caller:request:)``): a fresh challenge, valid
    /// for five minutes and usable once, and the caller's passkeys to exclude.
    public func passkeyRegistrationOptions(caller: SessionGrant, request: AuthRequest) throws(AuthError) -> JSON {
        try core.checkRecentAuthentication(caller, nil, nil, caller.user, request)
        try secondFactors.checkEnrolment(userId: caller.user.objectId, caller: caller, request: request)
        let user = caller.user
        let existing = try core.database { () throws in try passkeyStore.passkeys(userId: user.objectId) }
        let challenge = try newChallenge(userId: user.objectId, purpose: .registration)
        return relyingParty.registrationOptions(
            challenge: challenge, userHandle: Array(user.objectId.utf8), userName: user.username,
            displayName: user.email ?? user.username, excludeCredentials: existing.map(\.credentialId))
    }

    /// Verifies and stores a new passkey of the caller: the enrolment must be allowed as for the
    /// options, and the challenge one this user was given for registration, unused and
    /// unexpired; any failed check of the credential is 142. With `GATEHOUSE_MFA=required` the
    /// caller's other sessions end (``SecondFactorService/sessionsEndedByEnrolment(userId:caller:)``).
    public func registerPasskey(credential: JSON, name: String?, caller: SessionGrant, request: AuthRequest) throws(AuthError) -> Passkey {
        let user = caller.user
        try secondFactors.checkEnrolment(userId: user.objectId, caller: caller, request: request)
        let refuse = { (reason: String) -> AuthError in
            self.core.refused("passkey registration refused for user \(user.objectId): \(reason)")
            return .invalidPasskeyRegistration
        }
        let name = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= Self.passkeyNameLimit else { throw .tooLong(field: "name", limit: "\(Self.passkeyNameLimit) characters") }
        let response: RegistrationResponse
        do { response = try RegistrationResponse(json: credential) } catch { throw refuse(error.description) }
        let time = core.timestamp()
        let owner = try core.database { () throws in
            try passkeyStore.takeChallenge(digest: SHA256.digest(response.clientData.challenge), purpose: .registration, now: time)
        }
        guard case .some(.some(let ownerId)) = owner, ownerId == user.objectId else {
            throw refuse("the challenge was not given to this user, was used, or expired")
        }
        let registered: RelyingParty.RegisteredCredential
        do {
            registered = try relyingParty.verify(response, expectedChallenge: response.clientData.challenge)
        } catch {
            throw refuse(error.description)
        }
        let passkey = Passkey(objectId: SecureRandom.objectId(), name: name.isEmpty ? "Passkey" : name, createdAt: time, lastUsedAt: nil)
        let ending = secondFactors.sessionsEndedByEnrolment(userId: user.objectId, caller: caller)
        try core.database { () throws in
            do {
                try passkeyStore.insert(
                    passkey, userId: user.objectId, credentialId: registered.credentialId, publicKey: registered.publicKey.encoded,
                    signCount: registered.signCount, userVerified: registered.userVerified, endingSessions: ending,
                    events: core.events)
            } catch is PasskeyStore.CredentialTaken {
                throw refuse("the credential id is registered already")
            }
        }
        if ending != nil { core.sessionCache?.invalidate(userId: user.objectId) }
        core.notices.send(.passkeyAdded, about: user, request: request, at: time)
        return passkey
    }

    /// Options for logging in with a passkey: a fresh challenge (five minutes, once) and the
    /// named user's credential ids. An unknown username, or a user without passkeys, gets a
    /// decoy id derived from the name, so the answer does not tell which names exist; no
    /// username: no ids (discoverable credentials).
    public func passkeyLoginOptions(username: String?, request: AuthRequest) throws(AuthError) -> JSON {
        try FieldLimits.check(request)
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        var userId: String? = nil
        var ids: [[UInt8]] = []
        if let username, !username.isEmpty {
            if !username.contains("\0"), username.utf8.count <= FieldLimits.logInNameBytes,
                let user = try core.database({ () throws in try passkeyStore.user(logInName: username) })
            {
                userId = user.objectId
                ids = try core.database { () throws in try passkeyStore.passkeys(userId: user.objectId) }
                    .filter { !$0.disabled }.map(\.credentialId)
            }
            if ids.isEmpty { ids = [Self.decoyCredentialId(username)] }
        }
        let challenge = try newChallenge(userId: userId, purpose: .authentication)
        return relyingParty.authenticationOptions(challenge: challenge, allowCredentials: ids)
    }

    /// Logs in with a passkey assertion: a new session with `factors: ["passkey"]`, or
    /// `["passkey-unverified"]` when the authenticator did not verify its user (no second factor).
    /// The challenge must be one this server gave for log-in, unused and unexpired (and, if it
    /// named a user, that user's); the passkey must exist and not be disabled; then the signature,
    /// user handle and counter are checked. A counter that did not increase disables the passkey.
    /// Every attempt counts against the client address limit; any failed check is 101 `Invalid
    /// passkey.` A user whose email `GATEHOUSE_VERIFY_EMAILS=required` holds back gets 205 after
    /// the checks, and no session.
    /// The database work is two statements shared with the other log-ins waiting
    /// (``PasskeyStore/take(_:now:)``, then ``PasskeyStore/logIn(_:)``), the signature checked
    /// between them on this thread. A passkey leaves failed password log-ins and lockout as they
    /// are (they count password guesses).
    public func logInWithPasskey(credential: JSON, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(request)
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        // `userId`: the account whose passkey was presented, when it is known.
        let refuse = { (reason: String, userId: String?) -> AuthError in
            self.core.refused("passkey log-in refused: \(reason)")
            self.core.noteFailedLogIn(.invalidPasskey, userId: userId, authProvider: "passkey")
            return .invalidPasskey
        }
        let response: AuthenticationResponse
        do { response = try AuthenticationResponse(json: credential) } catch { throw refuse(error.description, nil) }
        let (token, session) = core.newSession(action: "login", authProvider: "passkey", request: request, now: core.timestamp())
        let logIn = PasskeyStore.LogIn(
            challengeDigest: SHA256.digest(response.clientData.challenge), credentialId: response.credentialId, session: session)
        let found = try core.database { () throws in try passkeyLookups.lookup(logIn) } ?? PasskeyStore.LogInLookup()
        guard case .some(let namedUser) = found.challengeUser else {
            throw refuse("the challenge was not given out, was used, or expired", nil)
        }
        guard let stored = found.passkey, let user = found.user, !stored.disabled else {
            throw refuse("no such passkey, or it is disabled", found.passkey?.userId)
        }
        if let namedUser, namedUser != stored.userId {
            throw refuse("the passkey is not the named user's", stored.userId)
        }
        let verified: RelyingParty.VerifiedAssertion
        do throws(WebAuthnError) {
            // The stored key was checked whole when it was registered.
            let key = try COSEKey(encoded: stored.publicKey, fullCheck: false)
            verified = try relyingParty.verify(
                response, expectedChallenge: response.clientData.challenge,
                credential: .init(publicKey: key, signCount: stored.signCount, userHandle: Array(stored.userId.utf8)),
                userHandleRequired: namedUser == nil)
        } catch {
            if case .counterNotIncreased = error {
                try core.database { () throws in try passkeyStore.disable(passkeyId: stored.passkey.objectId, now: core.timestamp()) }
                throw refuse("passkey \(stored.passkey.objectId) disabled as possibly cloned: \(error.description)", stored.userId)
            }
            throw refuse(error.description, stored.userId)
        }
        try core.requireEnabled(user)
        try core.requireVerifiedEmail(user)
        var granted = session
        granted.session.factors = [verified.userVerified ? "passkey" : Self.unverifiedFactor]
        try core.hooks?.check(.beforeLogIn, core.hookData(user, authProvider: "passkey", factors: granted.session.factors, request: request))
        let move = PasskeyStore.CounterMove(
            passkeyId: stored.passkey.objectId, previous: stored.signCount, signCount: verified.signCount, userId: user.objectId,
            session: granted, request: request)
        guard try core.database({ () throws in try passkeyLogIns.lookup(move) }) != nil else {
            throw refuse("a concurrent log-in with the passkey changed its counter first, it was disabled or removed, or its user was disabled", user.objectId)
        }
        core.notices.signedIn(user, request: request, at: granted.session.createdAt)
        return SessionGrant(sessionToken: token, user: user, session: granted.session)
    }

    /// The caller's passkeys, oldest first (disabled ones included, so the owner sees them).
    public func passkeys(of caller: SessionGrant) throws(AuthError) -> [Passkey] {
        try core.database { () throws in try passkeyStore.passkeys(userId: caller.user.objectId) }.map(\.passkey)
    }

    /// Removes the caller's passkey `id` (an object id or a Relay global id; recent
    /// authentication required): 101 `Object not found.` when it is not the caller's, 142 when
    /// it is the last way to log in. With `GATEHOUSE_MFA=required`, not from a session made
    /// without a second factor (206), which could otherwise remove the user's second factor and
    /// then enrol its own.
    public func removePasskey(id: String, caller: SessionGrant, request: AuthRequest) throws(AuthError) {
        try secondFactors.requireSecondFactor(caller, request)
        try core.checkRecentAuthentication(caller, nil, nil, caller.user, request)
        let objectId = AuthCore.objectId(id, type: "Passkey")
        let removed = try core.database { () throws in
            try AuthCore.identityConflicts {
                try passkeyStore.remove(objectId: objectId, userId: caller.user.objectId, now: core.timestamp(), events: core.events)
            }
        }
        guard removed else { throw .objectNotFound }
        core.notices.send(.passkeyRemoved, about: caller.user, request: request, at: core.timestamp())
    }

    /// Longest passkey name, in characters.
    static let passkeyNameLimit = 100

    /// The factor of a log-in with a passkey whose authenticator did not verify its user: it
    /// proves possession of the authenticator alone, so it is no second factor (``Session/secondFactors``).
    static let unverifiedFactor = "passkey-unverified"

    private func newChallenge(userId: String?, purpose: PasskeyStore.Purpose) throws(AuthError) -> [UInt8] {
        let challenge = RelyingParty.newChallenge()
        let time = core.timestamp()
        try core.database { () throws in
            try passkeyStore.insertChallenge(
                digest: SHA256.digest(challenge), userId: userId, purpose: purpose,
                expiresAt: time.addingTimeInterval(Double(RelyingParty.challengeLifetimeMilliseconds) / 1000), now: time)
        }
        return challenge
    }

    /// A credential id for names without passkeys: 16 bytes keyed by a per-process secret, so it
    /// is stable for a name, looks like a real id, and cannot be computed from the name alone.
    static func decoyCredentialId(_ username: String) -> [UInt8] {
        Array(SHA256.digest(decoyKey + Array(username.lowercased().utf8)).prefix(16))
    }

    private static let decoyKey = SecureRandom.bytes(32)
}
