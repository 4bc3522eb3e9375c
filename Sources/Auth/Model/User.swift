import Foundation
import JSON

/// A user account as the API shows it. The password hash never leaves the store.
public struct User: Sendable, Hashable {
    /// 10 characters from [A-Za-z0-9].
    public var objectId: String
    public var username: String
    public var email: String?
    public var emailVerified: Bool
    public var acl: ACL
    public var createdAt: Date
    public var updatedAt: Date
    /// `authDataResponse`: what an `authData` change returns once (the TOTP recovery codes).
    public var authDataResponse: JSONObject?
    /// The name shown for the user (``UserFields/displayNameCharacters``), trimmed; nil: none.
    public var displayName: String?
    /// An https URL of the user's picture (``UserFields/checkPhotoURL(_:)``); nil: none.
    public var photoURL: String?
    /// The stored values of the fields the app declares (``UserFields``), by name: what the
    /// declarations no longer name among them too, so that a field brought back finds its values.
    public var fields: JSONObject

    public init(
        objectId: String, username: String, email: String?, emailVerified: Bool, acl: ACL, createdAt: Date, updatedAt: Date,
        displayName: String? = nil, photoURL: String? = nil, fields: JSONObject = [:]
    ) {
        self.objectId = objectId
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.acl = acl
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.displayName = displayName
        self.photoURL = photoURL
        self.fields = fields
    }

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
