import Foundation

/// The sessions a user can see and end (docs/accounts.md, `viewer { session, sessions }`,
/// `revokeSession`, `revokeOtherSessions`). An ended session's token answers 209 at once on every
/// instance: this instance's cache drops it here, the others' through the table's notification.
extension SessionService {
    /// Every live session of the caller's user, newest first.
    public func sessions(of caller: SessionGrant) throws(AuthError) -> [Session] {
        let time = core.timestamp()
        return try core.database { () throws in
            try sessionStore.liveSessions(userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }
    }

    /// The caller's user's live session `objectId`; 101 when there is none.
    public func session(objectId: String, caller: SessionGrant) throws(AuthError) -> Session {
        try secondFactors.requireSecondFactor(caller, nil)
        let time = core.timestamp()
        let found = try core.database { () throws in
            try sessionStore.liveSession(
                objectId: objectId, userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }
        guard let found else { throw .objectNotFound }
        return found
    }

    /// Ends one of the caller's user's live sessions (`id`: global id or objectId), the caller's
    /// own included; 101 when there is no such session.
    public func revokeSession(id: String, caller: SessionGrant) throws(AuthError) {
        try secondFactors.requireSecondFactor(caller, nil)
        let objectId = AuthCore.objectId(id, type: "_Session")
        let time = core.timestamp()
        let digest = try core.database { () throws in
            try sessionStore.delete(objectId: objectId, userId: caller.user.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }
        guard let digest else { throw .objectNotFound }
        core.sessionCache?.invalidate(digest: digest)
    }

    /// Ends every session of the caller's user but the caller's; returns how many were live
    /// (expired and idle ones are deleted too, uncounted: they had already ended).
    public func revokeOtherSessions(caller: SessionGrant) throws(AuthError) -> Int {
        try secondFactors.requireSecondFactor(caller, nil)
        let time = core.timestamp()
        let ended = try core.database { () throws in
            try sessionStore.deleteOthers(
                userId: caller.user.objectId, keeping: caller.session.objectId, now: time, idleCutoff: idleCutoff(at: time))
        }
        for session in ended { core.sessionCache?.invalidate(digest: session.digest) }
        return ended.count { $0.live }
    }
}
