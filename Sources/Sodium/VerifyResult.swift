/// The outcome of checking a password against a stored hash.
public enum VerifyResult: Sendable, Hashable {
    /// The password matches. When `needsRehash` is true the caller should hash the password
    /// again with the current `PasswordHasher` and store the new hash (argon2id with other
    /// parameters, or any bcrypt hash).
    case valid(needsRehash: Bool)
    /// The hash is well formed but the password does not match it.
    case invalid
    /// The stored hash is not a format this module verifies (or is malformed); no password matches.
    case unrecognizedHash

    /// Whether the password matched.
    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// Whether the password matched and the stored hash should be replaced.
    public var needsRehash: Bool {
        if case .valid(let needsRehash) = self { return needsRehash }
        return false
    }
}
