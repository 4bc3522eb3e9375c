internal import CSodium

/// Hashes passwords with argon2id and verifies argon2id, bcrypt and Firebase scrypt hashes.
///
/// Hashing and verifying are blocking and, at `.interactive` cost, take about 100 ms and hold
/// 64 MiB each: call them from a bounded pool (`PasswordHashingPool`), not from Swift
/// concurrency's cooperative threads and not without a bound.
///
/// Passwords are bytes: a `String` is hashed as its UTF-8 bytes. Any length is accepted,
/// including NUL bytes inside (argon2id takes an explicit length). The maximum password length
/// is the caller's policy.
///
/// bcrypt hashes (`$2a$`, `$2b$`, `$2y$`, imported from Parse Server user tables) are verified
/// only; the password is cut at the first NUL byte and bcrypt itself uses only its first 72
/// bytes, so two passwords that agree up to either point verify alike against a bcrypt hash.
/// A bcrypt match always reports `needsRehash`, so such hashes are upgraded at the next login.
/// So does a match of a hash imported from Firebase Authentication (``FirebaseScrypt``).
public struct PasswordHasher: Sendable {
    /// The argon2id cost: number of passes and memory in bytes.
    public struct Cost: Sendable, Hashable, CustomStringConvertible {
        /// argon2id passes over memory (libsodium `opslimit`).
        public var opsLimit: UInt64
        /// Memory in bytes (libsodium `memlimit`); argon2id uses it in whole KiB.
        public var memLimit: Int

        /// A cost with the given limits; `PasswordHasher.init` checks them against libsodium's bounds.
        public init(opsLimit: UInt64, memLimit: Int) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// libsodium's INTERACTIVE cost (argon2id t=2, 64 MiB): the production default.
        public static let interactive = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_interactive()),
            memLimit: crypto_pwhash_argon2id_memlimit_interactive())

        /// libsodium's MODERATE cost (argon2id t=3, 256 MiB).
        public static let moderate = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_moderate()),
            memLimit: crypto_pwhash_argon2id_memlimit_moderate())

        /// libsodium's minimum cost (`crypto_pwhash_OPSLIMIT_MIN`, `MEMLIMIT_MIN`: t=1, 8 KiB).
        /// For tests only: it offers no protection.
        public static let minimum = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_min()),
            memLimit: crypto_pwhash_argon2id_memlimit_min())

        /// `t=<opsLimit>, m=<KiB>`: the parameters only.
        public var description: String { "argon2id(t=\(opsLimit), m=\(memLimit / 1024) KiB)" }

        /// Whether libsodium accepts this cost for argon2id.
        var isWithinLimits: Bool {
            opsLimit >= UInt64(crypto_pwhash_argon2id_opslimit_min())
                && opsLimit <= UInt64(crypto_pwhash_argon2id_opslimit_max())
                && memLimit >= crypto_pwhash_argon2id_memlimit_min()
                && memLimit <= crypto_pwhash_argon2id_memlimit_max()
        }
    }

    /// The cost of new hashes; verified argon2id hashes with another cost report `needsRehash`.
    public let cost: Cost

    /// A hasher producing argon2id hashes at `cost`.
    ///
    /// - Throws: `SodiumError.invalidCost` if libsodium does not accept the cost.
    public init(cost: Cost = .interactive) throws(SodiumError) {
        SodiumLibrary.ensureInitialized()
        guard cost.isWithinLimits else {
            throw .invalidCost(opsLimit: cost.opsLimit, memLimit: cost.memLimit)
        }
        self.cost = cost
    }

    // MARK: Hashing

    /// Returns an argon2id PHC string (`$argon2id$v=19$m=…,t=…,p=1$salt$digest`) of the
    /// UTF-8 bytes of `password`, with a fresh random salt.
    ///
    /// - Throws: `SodiumError` if libsodium fails (for instance out of memory).
    public func hash(_ password: String) throws(SodiumError) -> String {
        var bytes = Array(password.utf8)
        defer { wipe(&bytes) }
        return try hash(bytes)
    }

    /// Returns an argon2id PHC string of the password `bytes` (any length, NUL bytes included).
    ///
    /// - Throws: `SodiumError` if libsodium fails (for instance out of memory).
    public func hash(_ password: [UInt8]) throws(SodiumError) -> String {
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let result: Int32 = withPassword(password) { pw, length in
            out.withUnsafeMutableBufferPointer { out in
                SodiumError.clearErrno()
                return crypto_pwhash_str_alg(
                    out.baseAddress!, pw, UInt64(length),
                    cost.opsLimit, cost.memLimit, crypto_pwhash_alg_argon2id13())
            }
        }
        try SodiumError.check(result, "crypto_pwhash_str_alg")
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Verifying

    /// Checks `password` (its UTF-8 bytes) against a stored argon2id, bcrypt or Firebase scrypt hash.
    ///
    /// Never throws and never traps on a malformed hash: it reports `.unrecognizedHash`.
    public func verify(_ password: String, against storedHash: String) -> VerifyResult {
        var bytes = Array(password.utf8)
        defer { wipe(&bytes) }
        return verify(bytes, against: storedHash)
    }

    /// Checks the password `bytes` against a stored argon2id, bcrypt or Firebase scrypt hash.
    ///
    /// argon2id (`$argon2id$`) is checked by `crypto_pwhash_str_verify` and reports
    /// `needsRehash` when its parameters differ from `cost`; bcrypt (`$2a$`, `$2b$`, `$2y$`)
    /// by libxcrypt with a constant-time comparison, always reporting `needsRehash`; Firebase's
    /// modified scrypt (`$firebase-scrypt$`) likewise. Any other format is `.unrecognizedHash`.
    public func verify(_ password: [UInt8], against storedHash: String) -> VerifyResult {
        let hash = Array(storedHash.utf8)
        // A NUL inside would make C see a different (shorter) string than the one stored.
        guard !hash.contains(0) else { return .unrecognizedHash }
        if hash.starts(with: Self.argon2idPrefix) {
            return verifyArgon2id(password, hash)
        }
        if Bcrypt.isBcrypt(hash) {
            return Bcrypt.verify(password, hash)
        }
        if hash.starts(with: Self.firebasePrefix) {
            return FirebaseScrypt.verify(password, against: storedHash)
        }
        return .unrecognizedHash
    }

    /// Whether an argon2id hash was made with parameters other than `cost`:
    /// `nil` if libsodium cannot parse it.
    func needsRehash(_ storedHash: String) -> Bool? {
        let result = storedHash.withCString { crypto_pwhash_str_needs_rehash($0, cost.opsLimit, cost.memLimit) }
        switch result {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    static let argon2idPrefix = Array("$argon2id$".utf8)
    static let firebasePrefix = Array("$\(FirebaseScrypt.family)$".utf8)

    private func verifyArgon2id(_ password: [UInt8], _ hash: [UInt8]) -> VerifyResult {
        // libsodium reads the string into a crypto_pwhash_STRBYTES buffer (terminator included).
        guard hash.count < Int(crypto_pwhash_strbytes()) else { return .unrecognizedHash }
        let cHash = hash.map { CChar(bitPattern: $0) } + [0]
        let result: Int32 = withPassword(password) { pw, length in
            crypto_pwhash_str_verify(cHash, pw, UInt64(length))
        }
        let rehash = crypto_pwhash_str_needs_rehash(cHash, cost.opsLimit, cost.memLimit)
        if result == 0 {
            return .valid(needsRehash: rehash != 0)
        }
        // crypto_pwhash_str_verify says -1 for both "wrong password" and "cannot parse";
        // needs_rehash parses without hashing and tells them apart.
        return rehash < 0 ? .unrecognizedHash : .invalid
    }
}

/// Calls `body` with a non-null pointer to the password bytes and their length.
///
/// libsodium's arguments are declared nonnull, and an empty array may have no storage,
/// so an empty password gets a pointer to a one-byte buffer with length 0.
private func withPassword<R>(_ password: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> R) -> R {
    if password.isEmpty {
        let empty: [CChar] = [0]
        return empty.withUnsafeBufferPointer { body($0.baseAddress!, 0) }
    }
    return password.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!, $0.count) }
    }
}
