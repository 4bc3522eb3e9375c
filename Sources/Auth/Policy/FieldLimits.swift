/// The contract's field sizes ("Hardening"), checked before any other work so that no
/// oversized value reaches the rate limiter, the hasher, the database or the session cache.
enum FieldLimits {
    static let usernameCharacters = 128
    static let emailBytes = 254
    static let installationIdBytes = 256
    static let aclEntries = 64
    /// A log-in name longer than this (the longest email) matches no account.
    static let logInNameBytes = 254

    /// 142 naming the first field of a sign-up that is too long.
    static func check(_ fields: SignUpFields?, _ request: AuthRequest, maximumPasswordBytes: Int) throws(AuthError) {
        try check(request)
        guard let fields else { return }
        // `dropFirst` walks at most that many characters: no count of a huge string.
        if let username = fields.username, !username.dropFirst(usernameCharacters).isEmpty {
            throw .tooLong(field: "username", limit: "\(usernameCharacters) characters")
        }
        if let email = fields.email, email.utf8.count > emailBytes {
            throw .tooLong(field: "email", limit: "\(emailBytes) bytes")
        }
        if let password = fields.password, password.utf8.count > maximumPasswordBytes {
            throw .tooLong(field: "password", limit: "\(maximumPasswordBytes) bytes")
        }
        if let acl = fields.acl, acl.users.count + acl.roles.count + (acl.publicAccess == nil ? 0 : 1) > aclEntries {
            throw .tooLong(field: "ACL", limit: "\(aclEntries) entries")
        }
    }

    /// 142 when the request's installation id is too long.
    static func check(_ request: AuthRequest) throws(AuthError) {
        if let installationId = request.installationId, installationId.utf8.count > installationIdBytes {
            throw .tooLong(field: "X-Parse-Installation-Id", limit: "\(installationIdBytes) bytes")
        }
    }
}
