import Foundation
import Postgres
import Sodium

/// The sessions a user can see and end (contract: accounts.md, `viewer { session, sessions }`,
/// `revokeSession`, `revokeOtherSessions`).
extension AuthService {
    /// Every live session of the caller's user, newest first.
    public func sessions(of caller: SessionGrant) throws(AuthError) -> [Session] {
        throw .internalError(detail: "sessions is not built yet")
    }

    /// The caller's user's live session `objectId`; 101 when there is none.
    public func session(objectId: String, caller: SessionGrant) throws(AuthError) -> Session {
        throw .internalError(detail: "session is not built yet")
    }

    /// Ends one of the caller's user's sessions (`id`: global id or objectId), on every instance.
    public func revokeSession(id: String, caller: SessionGrant) throws(AuthError) {
        throw .internalError(detail: "revokeSession is not built yet")
    }

    /// Ends every session of the caller's user but the caller's; returns how many.
    public func revokeOtherSessions(caller: SessionGrant) throws(AuthError) -> Int {
        throw .internalError(detail: "revokeOtherSessions is not built yet")
    }
}
