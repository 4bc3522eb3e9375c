import Foundation
import Postgres
import Sodium

/// The account lifecycle (contract: accounts.md): password reset, email verification, changes,
/// deletion, reading a user. Each mail is written to the outbox in the transaction of the change
/// that causes it.
extension AuthService {
    /// Sends a reset link to the user whose email this is (case-insensitively), if any; always
    /// succeeds otherwise, so that the answer does not tell who is registered.
    public func resetPassword(email: String, request: AuthRequest) throws(AuthError) {
        throw .internalError(detail: "resetPassword is not built yet")
    }

    /// Sets a new password with a reset token; ends all of the user's sessions.
    public func confirmResetPassword(username: String, password: String, token: String, request: AuthRequest) throws(AuthError) {
        throw .internalError(detail: "confirmResetPassword is not built yet")
    }

    /// Sends a verification link to the address, if it is an existing user's unverified email.
    public func sendVerificationEmail(email: String, request: AuthRequest) throws(AuthError) {
        throw .internalError(detail: "sendVerificationEmail is not built yet")
    }

    /// Marks the user's email verified with a verification token.
    public func verifyEmail(username: String, token: String, request: AuthRequest) throws(AuthError) {
        throw .internalError(detail: "verifyEmail is not built yet")
    }

    /// Changes a user: its owner (`caller`) or the master key.
    public func updateUser(
        id: String, changes: UserChanges, currentPassword: String?, caller: SessionGrant?, request: AuthRequest
    ) throws(AuthError) -> User {
        throw .internalError(detail: "updateUser is not built yet")
    }

    /// Deletes a user with all their sessions, tokens and pending mail; returns it as it was.
    public func deleteUser(id: String, currentPassword: String?, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        throw .internalError(detail: "deleteUser is not built yet")
    }

    /// The user `id` (a global id or an objectId), to its owner or the master key; 101 otherwise.
    public func user(id: String, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        throw .internalError(detail: "user is not built yet")
    }
}
