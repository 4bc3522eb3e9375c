/// An error of the OAuth provider as the RFCs name it (RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1,
/// RFC 7591 §3.2.2, RFC 8707, OpenID Connect Core §3.1.2.6), with a description for developers
/// that never holds a secret.
public struct OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `error` value.
    public enum Code: String, Sendable, Hashable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case invalidScope = "invalid_scope"
        case invalidTarget = "invalid_target"
        case accessDenied = "access_denied"
        case loginRequired = "login_required"
        case consentRequired = "consent_required"
        case invalidToken = "invalid_token"
        case insufficientScope = "insufficient_scope"
        case invalidRedirectURI = "invalid_redirect_uri"
        case invalidClientMetadata = "invalid_client_metadata"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
    }

    public var code: Code
    public var description: String
    /// Seconds to wait, for a refusal by a rate limit or an unavailable database.
    public var retryAfter: Int?
    /// HTTP 429 rather than the code's status: a rate limit.
    public var rateLimited: Bool

    public init(_ code: Code, _ description: String, retryAfter: Int? = nil, rateLimited: Bool = false) {
        self.code = code
        self.description = description
        self.retryAfter = retryAfter
        self.rateLimited = rateLimited
    }

    /// The HTTP status of the error's JSON answer: 401 for the client's or the token's
    /// authentication, 403 for too narrow a scope, 429 past a rate limit, 500 and 503 for the
    /// server, 400 otherwise.
    public var status: Int {
        if rateLimited { return 429 }
        switch code {
        case .invalidClient, .invalidToken: return 401
        case .insufficientScope: return 403
        case .serverError: return 500
        case .temporarilyUnavailable: return 503
        default: return 400
        }
    }

    /// A domain error met while answering: the database or the server, a rate limit, or a
    /// session that cannot be used.
    init(_ error: AuthError) {
        switch error {
        case .databaseUnavailable:
            self.init(.temporarilyUnavailable, "The database is unavailable; try again.", retryAfter: error.retryAfter)
        case .rateLimited(let seconds):
            self.init(.temporarilyUnavailable, "Too many requests; try again in \(seconds) seconds.", retryAfter: seconds, rateLimited: true)
        case .busy:
            self.init(.temporarilyUnavailable, "The server is busy; try again.", retryAfter: 1)
        case .internalError:
            self.init(.serverError, "Internal server error.")
        case .invalidSession, .sessionExpired:
            self.init(.loginRequired, "The session is not valid (signed out or expired): sign in again.")
        case .secondFactorEnrolmentRequired, .secondFactorSessionRequired:
            self.init(.accessDenied, "The account must finish setting up two-step verification first.")
        case .emailNotVerified:
            self.init(.accessDenied, "The account's email address is not verified.")
        default:
            self.init(.accessDenied, "The request was refused.")
        }
    }
}
