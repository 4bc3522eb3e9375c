import JSON

/// What the domain needs to know about the request an operation came in.
public struct AuthRequest: Sendable, Hashable {
    /// The client's address, for rate limits.
    public var clientAddress: String
    /// `X-Parse-Installation-Id`, stored on sessions the request creates.
    public var installationId: String?
    /// Which master key the request presented, if any.
    public var masterKey: MasterKey?
    /// Whether the request presented the configured master key (the read-only one is not).
    public var isMaster: Bool {
        get { masterKey == .master }
        set { masterKey = newValue ? .master : nil }
    }
    /// Whether the request reads as the master key does: it presented either master key.
    public var readsAsMaster: Bool { masterKey != nil }
    /// `User-Agent`, kept (cut short) on sessions the request creates.
    public var userAgent: String?
    /// `Accept-Language`: the language of mail the request causes.
    public var acceptLanguage: String?

    public init(
        clientAddress: String, installationId: String? = nil, isMaster: Bool = false, masterKey: MasterKey? = nil,
        userAgent: String? = nil, acceptLanguage: String? = nil
    ) {
        self.clientAddress = clientAddress
        self.installationId = installationId
        self.masterKey = masterKey ?? (isMaster ? .master : nil)
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
    }
}

/// The keys that act for the operators (the `X-Parse-Master-Key` header); the raw values name
/// them in logs and audit entries, never the keys themselves.
public enum MasterKey: String, Sendable, Hashable {
    /// `GATEHOUSE_MASTER_KEY`: reads and changes everything.
    case master
    /// `GATEHOUSE_READ_ONLY_MASTER_KEY`: reads what the master key reads; changes nothing.
    case readOnly = "read-only"
}

/// signUp's `fields`, as the client sent them (nil: absent or null).
public struct SignUpFields: Sendable, Hashable {
    public var username: String?
    public var password: String?
    public var email: String?
    /// Whether `emailVerified` was given at all (true or false).
    public var emailVerified: Bool?
    public var acl: ACL?
    /// Whether `authData` was a non-empty object (`{}` counts as absent).
    public var hasAuthData: Bool
    /// `displayName`, `photoURL` and the declared fields given, by name (null: not set).
    public var profile: JSONObject

    public init(
        username: String? = nil, password: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
        acl: ACL? = nil, hasAuthData: Bool = false, profile: JSONObject = [:]
    ) {
        self.username = username
        self.password = password
        self.email = email
        self.emailVerified = emailVerified
        self.acl = acl
        self.hasAuthData = hasAuthData
        self.profile = profile
    }
}

/// updateUser's `fields`, as the client sent them (nil: absent or null).
public struct UserChanges: Sendable, Hashable {
    public var username: String?
    public var email: String?
    public var password: String?
    public var emailVerified: Bool?
    public var acl: ACL?
    /// `authData`: a provider's object links it, null unlinks it (empty: no change).
    public var authData: JSONObject
    /// `displayName`, `photoURL` and the declared fields to change, by name: null clears one,
    /// a field not named keeps its value.
    public var profile: JSONObject

    public init(
        username: String? = nil, email: String? = nil, password: String? = nil, emailVerified: Bool? = nil,
        acl: ACL? = nil, authData: JSONObject = [:], profile: JSONObject = [:]
    ) {
        self.username = username
        self.email = email
        self.password = password
        self.emailVerified = emailVerified
        self.acl = acl
        self.authData = authData
        self.profile = profile
    }
}
