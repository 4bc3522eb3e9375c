import Foundation
import JSON

/// A user account as the API shows it. The password hash never leaves the store.
///
/// Its values live in one immutable box, so that a copy (each resolver's parent, each grant and
/// session cache entry) is one reference however much the user holds; a change makes a new box.
public struct User: Sendable, Hashable {
    private struct Values: Sendable, Hashable {
        var objectId: String
        var username: String
        var email: String?
        var emailVerified: Bool
        var acl: ACL
        var createdAt: Date
        var updatedAt: Date
        var authDataResponse: JSONObject?
        var displayName: String?
        var photoURL: String?
        var fields: JSONObject
        var disabled: Bool
        var disabledReason: String?
    }

    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    /// 10 characters from [A-Za-z0-9].
    public var objectId: String {
        get { box.values.objectId }
        set { change { $0.objectId = newValue } }
    }
    public var username: String {
        get { box.values.username }
        set { change { $0.username = newValue } }
    }
    public var email: String? {
        get { box.values.email }
        set { change { $0.email = newValue } }
    }
    public var emailVerified: Bool {
        get { box.values.emailVerified }
        set { change { $0.emailVerified = newValue } }
    }
    public var acl: ACL {
        get { box.values.acl }
        set { change { $0.acl = newValue } }
    }
    public var createdAt: Date {
        get { box.values.createdAt }
        set { change { $0.createdAt = newValue } }
    }
    public var updatedAt: Date {
        get { box.values.updatedAt }
        set { change { $0.updatedAt = newValue } }
    }
    /// `authDataResponse`: what an `authData` change returns once (the TOTP recovery codes).
    public var authDataResponse: JSONObject? {
        get { box.values.authDataResponse }
        set { change { $0.authDataResponse = newValue } }
    }
    /// The name shown for the user (``UserFields/displayNameCharacters``), trimmed; nil: none.
    public var displayName: String? {
        get { box.values.displayName }
        set { change { $0.displayName = newValue } }
    }
    /// An https URL of the user's picture (``UserFields/checkPhotoURL(_:)``); nil: none.
    public var photoURL: String? {
        get { box.values.photoURL }
        set { change { $0.photoURL = newValue } }
    }
    /// Whether an operator disabled the account: it has no sessions and every log-in is refused.
    public var disabled: Bool {
        get { box.values.disabled }
        set { change { $0.disabled = newValue } }
    }
    /// Why the account was disabled, as the operator wrote it (shown to the master keys only).
    public var disabledReason: String? {
        get { box.values.disabledReason }
        set { change { $0.disabledReason = newValue } }
    }
    /// The stored values of the fields the app declares (``UserFields``), by name: what the
    /// declarations no longer name among them too, so that a field brought back finds its values.
    public var fields: JSONObject {
        get { box.values.fields }
        set { change { $0.fields = newValue } }
    }

    public init(
        objectId: String, username: String, email: String?, emailVerified: Bool, acl: ACL, createdAt: Date, updatedAt: Date,
        displayName: String? = nil, photoURL: String? = nil, fields: JSONObject = [:], disabled: Bool = false,
        disabledReason: String? = nil
    ) {
        box = Box(Values(
            objectId: objectId, username: username, email: email, emailVerified: emailVerified, acl: acl, createdAt: createdAt,
            updatedAt: updatedAt, authDataResponse: nil, displayName: displayName, photoURL: photoURL, fields: fields,
            disabled: disabled, disabledReason: disabledReason))
    }

    /// The stored value of the declared field `name` (``fields``), read in place.
    public func fieldValue(_ name: String) -> JSON? { box.values.fields[name] }

    private mutating func change(_ body: (inout Values) -> Void) {
        var values = box.values
        body(&values)
        box = Box(values)
    }

    public static func == (a: User, b: User) -> Bool { a.box === b.box || a.box.values == b.box.values }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.values) }

    /// The Relay global id: standard base64 of `"_User:" + objectId` (as Parse).
    public var globalId: String { GlobalID.encode(type: "_User", id: objectId) }
}

/// A session token, its session and the user it belongs to: what signUp, logIn and viewer return.
public struct SessionGrant: Sendable, Hashable {
    /// The token (`r:` and 32 hex characters); only its SHA-256 digest is stored.
    public var sessionToken: String
    public var user: User
    public var session: Session

    public init(sessionToken: String, user: User, session: Session) {
        self.sessionToken = sessionToken
        self.user = user
        self.session = session
    }

    public var expiresAt: Date { session.expiresAt }
}

/// Relay global ids as Parse makes them.
public enum GlobalID {
    public static func encode(type: String, id: String) -> String {
        Data((type + ":" + id).utf8).base64EncodedString()
    }

    /// The object id of a global id of `type`, or nil if `text` is not one.
    public static func decode(_ text: String, type: String) -> String? {
        guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
            decoded.hasPrefix(type + ":")
        else { return nil }
        return String(decoded.dropFirst(type.count + 1))
    }
}
