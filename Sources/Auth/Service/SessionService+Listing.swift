import Foundation

/// The sessions a user can see and end (docs/accounts.md, `viewer { session, sessions }`,
/// `revokeSession`, `revokeOtherSessions`). An ended session's token answers 209 at once on every
/// instance: this instance's cache drops it here, the others' through the table's notification.
///
/// Installation ids are the device's secret behind the owner's exemption from the log-in limits
/// (``logIn(username:password:hasAuthData:mfa:request:)``): a session is shown with its
/// installation id only to that session itself, and ending sessions here (unlike a log-out)
/// forgets their installations.
extension SessionService {
    /// Every live session of the caller's user, newest first; only the caller's own shows its
    /// installation id.
    public func sessions(of caller: SessionGrant) throws(AuthError) -> [Session] {
        let time = core.timestamp()
        return try core.database { () throws in
            try sessionStore.liveSessions(userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }.map { Self.shown($0, to: caller) }
    }

    /// The caller's user's live session `objectId` (its installation id only if it is the
    /// caller's own); 101 when there is none.
    public func session(objectId: String, caller: SessionGrant) throws(AuthError) -> Session {
        try secondFactors.requireSecondFactor(caller, nil)
        let time = core.timestamp()
        let found = try core.database { () throws in
            try sessionStore.liveSession(
                objectId: objectId, userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }
        guard let found else { throw .objectNotFound }
        return Self.shown(found, to: caller)
    }

    /// `session` as `caller` may see it: without its installation id unless it is the caller's.
    static func shown(_ session: Session, to caller: SessionGrant) -> Session {
        guard session.objectId != caller.session.objectId else { return session }
        var shown = session
        shown.installationId = nil
        return shown
    }

    /// Ends one of the caller's user's live sessions (`id`: global id or objectId), the caller's
    /// own included, and forgets its installation; 101 when there is no such session.
    public func revokeSession(id: String, caller: SessionGrant) throws(AuthError) {
        try secondFactors.requireSecondFactor(caller, nil)
        let objectId = AuthCore.objectId(id, type: "_Session")
        let time = core.timestamp()
        let digest = try core.database { () throws in
            try sessionStore.delete(
                objectId: objectId, userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time), events: core.events)
        }
        guard let digest else { throw .objectNotFound }
        core.sessionCache?.invalidate(digest: digest)
    }

    /// Ends every session of the caller's user but the caller's and forgets every installation of
    /// the user but the caller's (those of sessions logged out before too); returns how many
    /// sessions were live (expired and idle ones are deleted too, uncounted: they had already ended).
    public func revokeOtherSessions(caller: SessionGrant) throws(AuthError) -> Int {
        try secondFactors.requireSecondFactor(caller, nil)
        let time = core.timestamp()
        let ended = try core.database { () throws in
            try sessionStore.deleteOthers(
                userId: caller.user.objectId, keeping: caller.session.objectId, now: time, idleCutoff: idleCutoff(at: time),
                events: core.events)
        }
        for session in ended { core.sessionCache?.invalidate(digest: session.digest) }
        return ended.count { $0.live }
    }
}
