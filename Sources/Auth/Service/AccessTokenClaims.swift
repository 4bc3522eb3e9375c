public import JSON

/// The claims of an access token (docs/tokens.md): who the user is, from the ``User``
/// (``userClaims(of:guest:fields:)``, the one place a new user field joins the token), and how the
/// session was made, from the ``Session`` (``amr(_:)``).
public enum AccessTokenClaims {
    /// What a token says about the user: `email` and `email_verified` when the user has an email,
    /// `preferred_username` (left out for a guest, whose username is random), `name` and `picture`
    /// (the display name and photo, when set), then each `@claim` field of `fields` the user has a
    /// value of, under its name. The one place a user field joins the token.
    public static func userClaims(of user: User, guest: Bool, fields: UserFields) -> JSONObject {
        var claims = JSONObject(minimumCapacity: 5 + fields.claims.count)
        if let email = user.email {
            claims.appendUnchecked("email", .string(email))
            claims.appendUnchecked("email_verified", .bool(user.emailVerified))
        }
        if !guest { claims.appendUnchecked("preferred_username", .string(user.username)) }
        if let name = user.displayName { claims.appendUnchecked("name", .string(name)) }
        if let picture = user.photoURL { claims.appendUnchecked("picture", .string(picture)) }
        // Declared names never take a registered claim's (UserFields refuses them at start-up).
        for (name, value) in fields.claimValues(of: user) { claims.appendUnchecked(name, value) }
        return claims
    }

    /// Whether `session` is a guest's: made by `logInWith` with the `anonymous` provider.
    public static func isGuest(_ session: Session) -> Bool {
        session.factors.contains("anonymous")
    }

    /// RFC 8176 authentication method references for the session's `createdWith.factors`:
    /// `password` → `pwd`, `totp` → `otp`, a passkey → `hwk`, a provider → its name (`anonymous`
    /// included), each once; and `mfa` when the log-in proved two factors or more.
    public static func amr(_ factors: [String]) -> [String] {
        var methods: [String] = []
        for factor in factors {
            let method = switch factor {
            case "password": "pwd"
            case "totp": "otp"
            case "passkey", "passkey-unverified": "hwk"
            default: factor
            }
            if !methods.contains(method) { methods.append(method) }
        }
        if factors.count >= 2 { methods.append("mfa") }
        return methods
    }
}
