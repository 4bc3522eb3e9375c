import Foundation
import JSON

/// Something that happened to a user, as webhooks report it: recorded in the transaction of the
/// change (``EventLog/record(_:in:)``), so no change goes without its event and no event leaves
/// for a change that rolled back.
///
/// `data` never holds a password, hash, token, secret, link or a `@hidden` field's value: the
/// constructors below are the only way to make an event, and each takes only what its type reports.
public struct AuthEvent: Sendable, Equatable {
    /// The event catalogue.
    public enum Kind: String, Sendable, CaseIterable {
        case userCreated = "user.created"
        case userUpdated = "user.updated"
        case userDeleted = "user.deleted"
        case userEmailVerified = "user.email_verified"
        case userPasswordChanged = "user.password_changed"
        case userLocked = "user.locked"
        case sessionCreated = "session.created"
        case sessionEnded = "session.ended"
        case mfaEnabled = "mfa.enabled"
        case mfaDisabled = "mfa.disabled"
        case passkeyAdded = "passkey.added"
        case passkeyRemoved = "passkey.removed"
        // The audit log's own types (``isAuditOnly``): never sent to webhooks.
        case sessionFailed = "session.failed"
        case adminAction = "admin.action"
        case userDisabled = "user.disabled"
        case userEnabled = "user.enabled"
        case sessionImpersonated = "session.impersonated"

        /// Types the audit log keeps that are not in the webhook catalogue.
        public static let auditOnly: Set<Kind> = [.sessionFailed, .adminAction, .userDisabled, .userEnabled, .sessionImpersonated]

        /// Whether webhooks never take this type.
        public var isAuditOnly: Bool { Self.auditOnly.contains(self) }
    }

    /// Why a log-in failed (`session.failed`'s `reason`).
    public enum FailureReason: String, Sendable {
        /// A wrong password, or a name that matches no account.
        case password
        /// A wrong second factor code (TOTP or recovery code).
        case mfa
        case passkey
        /// A provider's authData that did not verify.
        case provider
        /// The account is locked after failed log-ins.
        case locked
        /// The account was disabled by an operator.
        case disabled
        /// Past the per-account log-in limit.
        case rateLimited = "rate_limited"
    }

    /// Why a session ended (`session.ended`'s `reason`).
    public enum EndReason: String, Sendable {
        case logout
        case revoked
        case passwordChanged = "password_changed"
        case userDeleted = "user_deleted"
    }

    /// How a password changed (`user.password_changed`'s `via`).
    public enum PasswordChange: String, Sendable {
        case update
        case reset
    }

    public let kind: Kind
    /// The user it happened to (an objectId); nil only for audit-only events about no known
    /// account (a failed log-in with an unknown name).
    public let userId: String?
    /// What the event reports besides `userId`.
    public let data: JSONObject
    /// When it happened.
    public let time: Date

    private init(_ kind: Kind, _ userId: String?, _ data: JSONObject, _ time: Date) {
        self.kind = kind
        self.userId = userId
        self.data = data
        self.time = time
    }

    /// The `data` of a delivery (and of the audit entry): `userId` first, then the rest.
    public var deliveredData: JSONObject {
        var object: JSONObject = [:]
        if let userId { object["userId"] = .string(userId) }
        for (key, value) in data { object[key] = value }
        return object
    }

    private static func text(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }

    /// `date` as the API's `Date` text, to the millisecond.
    static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISO8601.write(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The body of a delivery: `{"type", "timestamp", "data"}`.
    public var body: String {
        JSON.object(["type": .string(kind.rawValue), "timestamp": .string(Self.iso8601(time)), "data": .object(deliveredData)])
            .serializedString()
    }

    /// `user.created`: a sign-up, or a first `logInWith` (guests too).
    static func userCreated(_ user: User, authProvider: String, at time: Date) -> AuthEvent {
        AuthEvent(.userCreated, user.objectId, [
            "username": .string(user.username), "email": text(user.email), "authProvider": .string(authProvider),
        ], time)
    }

    /// `user.updated`: `changed` names the fields whose values changed (never the values).
    static func userUpdated(userId: String, changed: [String], at time: Date) -> AuthEvent {
        AuthEvent(.userUpdated, userId, ["changed": .array(changed.map(JSON.string))], time)
    }

    /// `user.deleted`.
    static func userDeleted(_ user: User, at time: Date) -> AuthEvent {
        AuthEvent(.userDeleted, user.objectId, ["username": .string(user.username), "email": text(user.email)], time)
    }

    /// `user.email_verified`: `verifyEmail`, or a reset that verified the address.
    static func emailVerified(userId: String, email: String?, at time: Date) -> AuthEvent {
        AuthEvent(.userEmailVerified, userId, ["email": text(email)], time)
    }

    /// `user.password_changed`.
    static func passwordChanged(userId: String, via: PasswordChange, at time: Date) -> AuthEvent {
        AuthEvent(.userPasswordChanged, userId, ["via": .string(via.rawValue)], time)
    }

    /// `user.locked`: lockout started, until `until`.
    static func locked(userId: String, until: Date, at time: Date) -> AuthEvent {
        AuthEvent(.userLocked, userId, ["until": .string(iso8601(until))], time)
    }

    /// `session.created`: any log-in or sign-up.
    static func sessionCreated(_ session: Session, userId: String, request: AuthRequest) -> AuthEvent {
        AuthEvent(.sessionCreated, userId, [
            "sessionId": .string(session.objectId), "authProvider": .string(session.authProvider),
            "factors": .array(session.factors.map(JSON.string)), "ip": .string(request.clientAddress),
            "userAgent": text(session.userAgent),
        ], session.createdAt)
    }

    /// `session.ended`.
    static func sessionEnded(sessionId: String, userId: String, reason: EndReason, at time: Date) -> AuthEvent {
        AuthEvent(.sessionEnded, userId, ["sessionId": .string(sessionId), "reason": .string(reason.rawValue)], time)
    }

    /// `mfa.enabled` or `mfa.disabled`: TOTP on or off.
    static func mfa(enabled: Bool, userId: String, at time: Date) -> AuthEvent {
        AuthEvent(enabled ? .mfaEnabled : .mfaDisabled, userId, [:], time)
    }

    /// `passkey.added` or `passkey.removed`.
    static func passkey(added: Bool, passkeyId: String, name: String, userId: String, at time: Date) -> AuthEvent {
        AuthEvent(added ? .passkeyAdded : .passkeyRemoved, userId, ["passkeyId": .string(passkeyId), "name": .string(name)], time)
    }

    /// `session.failed`: a log-in refused (audit log only). `userId` is nil when the name matched
    /// no account; `data` holds the reason and the way of logging in, never what was typed.
    static func logInFailed(_ reason: FailureReason, userId: String?, authProvider: String, at time: Date) -> AuthEvent {
        AuthEvent(.sessionFailed, userId, ["reason": .string(reason.rawValue), "authProvider": .string(authProvider)], time)
    }

    /// `user.disabled`: an operator disabled the account (audit log only), with the reason given.
    static func userDisabled(userId: String, reason: String?, at time: Date) -> AuthEvent {
        AuthEvent(.userDisabled, userId, ["reason": text(reason)], time)
    }

    /// `user.enabled`: an operator enabled the account again (audit log only).
    static func userEnabled(userId: String, at time: Date) -> AuthEvent {
        AuthEvent(.userEnabled, userId, [:], time)
    }

    /// `session.impersonated`: an operator's `logInAs` session (audit log only), with its reason.
    static func sessionImpersonated(sessionId: String, userId: String, reason: String?, at time: Date) -> AuthEvent {
        AuthEvent(.sessionImpersonated, userId, ["sessionId": .string(sessionId), "reason": text(reason)], time)
    }

    /// `admin.action`: a mutation made with a master key (audit log only): the mutation's name,
    /// whether it succeeded (else its error code) and the user it named, if any; never its input.
    static func adminAction(operation: String, targetUserId: String?, errorCode: Int?, at time: Date) -> AuthEvent {
        AuthEvent(.adminAction, targetUserId, [
            "operation": .string(operation), "ok": .bool(errorCode == nil), "code": errorCode.map(JSON.int) ?? .null,
        ], time)
    }
}
