import Foundation

/// One user of an export, as the importer stores it: the exporter's id kept as `objectId`, the
/// password hash as exported (verified at the user's next log-in, then replaced by argon2id).
public struct ImportRecord: Sendable, Equatable {
    /// The line of the export the record starts on (1-based).
    public var line: Int
    public var objectId: String
    public var username: String
    public var email: String?
    public var emailVerified: Bool
    /// A hash ``Sodium/HashKinds`` knows a kind of; nil: no password (provider log-ins only).
    public var passwordHash: String?
    public var displayName: String?
    public var photoURL: String?
    /// Linked providers: (provider name as `authData` keys it, the provider's user id).
    public var identities: [Identity]
    public var createdAt: Date
    public var updatedAt: Date
    /// When the user was disabled, nil for an enabled one: a disabled user is imported disabled
    /// (every log-in that passes its checks is refused, as for a user an operator disabled).
    public var disabledAt: Date?
    /// Why, as operators see it (`User.disabledReason`).
    public var disabledReason: String?

    /// A provider's user id linked to the user.
    public struct Identity: Sendable, Equatable {
        public var provider: String
        public var providerUserId: String

        public init(provider: String, providerUserId: String) {
            self.provider = provider
            self.providerUserId = providerUserId
        }
    }

    public init(
        line: Int, objectId: String, username: String, email: String? = nil, emailVerified: Bool = false,
        passwordHash: String? = nil, displayName: String? = nil, photoURL: String? = nil, identities: [Identity] = [],
        createdAt: Date, updatedAt: Date? = nil, disabledAt: Date? = nil, disabledReason: String? = nil
    ) {
        self.line = line
        self.objectId = objectId
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.displayName = displayName
        self.photoURL = photoURL
        self.identities = identities
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
    }

    /// Whether `id` can be kept as an object id: 1 to 64 characters of `[A-Za-z0-9_-]` (what the
    /// users table accepts).
    public static func isValidObjectId(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }
}

/// Why a record of an export was not imported; its description is the reason reported beside
/// the record's line. Never quotes a password hash.
public struct ImportRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
