public import JWT

/// Access tokens (docs/tokens.md): RFC 9068 JWTs signed with keys that rotate on their own.
public struct AccessTokenPolicy: Sendable, Hashable {
    /// The audiences a token may be asked for (`GATEHOUSE_ACCESS_TOKEN_AUDIENCES`); the first is
    /// the default. Empty: the issuer alone.
    public var audiences: [String]
    /// Seconds a token is valid (`GATEHOUSE_ACCESS_TOKEN_TTL`), within ``lifetimes``.
    public var lifetime: Int
    /// The algorithm new signing keys are made for (`GATEHOUSE_ACCESS_TOKEN_ALG`).
    public var algorithm: SigningAlgorithm
    /// Days after which a signing key is replaced (`GATEHOUSE_SIGNING_KEY_ROTATION_DAYS`); 0: never.
    public var rotationDays: Int
    /// The `client_id` claim: `GATEHOUSE_APP_ID`, or `gatehouse` without one.
    public var clientId: String

    public init(
        audiences: [String] = [], lifetime: Int = 300, algorithm: SigningAlgorithm = .es256, rotationDays: Int = 30,
        clientId: String = "gatehouse"
    ) {
        self.audiences = audiences
        self.lifetime = lifetime
        self.algorithm = algorithm
        self.rotationDays = rotationDays
        self.clientId = clientId
    }

    /// The token lifetimes a deployment may choose, in seconds.
    public static let lifetimes = 60...3600
    /// The longest token, in bytes of its compact form: a user whose claims would need more gets
    /// 142 `Access token too large.` rather than a token some proxies or headers would cut.
    public static let maximumBytes = 8192
    /// Seconds verifiers may cache the key set (`Cache-Control: public, max-age=…` of the JWKS).
    public static let keySetMaxAge = 300
    /// Seconds of clock difference between instances and verifiers that the key schedule allows for.
    public static let clockLeeway = 60
}
