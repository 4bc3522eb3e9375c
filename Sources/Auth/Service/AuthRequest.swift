/// What the domain needs to know about the request an operation came in.
public struct AuthRequest: Sendable, Hashable {
    /// The client's address, for rate limits.
    public var clientAddress: String
    /// `X-Parse-Installation-Id`, stored on sessions the request creates.
    public var installationId: String?
    /// Whether the request presented the configured master key.
    public var isMaster: Bool

    public init(clientAddress: String, installationId: String? = nil, isMaster: Bool = false) {
        self.clientAddress = clientAddress
        self.installationId = installationId
        self.isMaster = isMaster
    }
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

    public init(
        username: String? = nil, password: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
        acl: ACL? = nil, hasAuthData: Bool = false
    ) {
        self.username = username
        self.password = password
        self.email = email
        self.emailVerified = emailVerified
        self.acl = acl
        self.hasAuthData = hasAuthData
    }
}
