internal import CSodium
import Threading

/// The kinds of stored password hash a log-in may meet (a kind is the family and its cost:
/// `$argon2id$v=19$m=65536,t=2,p=1`, `$2b$10`, `$firebase-scrypt$r=8,m=14`), each with a dummy hash of that kind, so that a
/// failed log-in does the same work whatever the account (see ``verify(_:against:check:)``).
///
/// The current argon2id cost is always a kind (new sign-ups store it). A stored hash in a format
/// this module does not verify counts as that kind too. Thread-safe: the set is replaced by
/// ``replace(withPrefixes:)`` (the kinds read from the users table) and grows by
/// ``insert(kindOf:)`` when a log-in meets a kind not yet in it.
public final class HashKinds: Sendable {
    /// The kind of new hashes.
    public let current: String
    /// Kind → its dummy: a hash of that kind whose digest is random, so no known password matches it.
    private let dummies: Lock<[String: String]>

    /// The set holding the kind of `cost` only.
    public init(current cost: PasswordHasher.Cost) {
        current = "$argon2id$v=19$m=\(cost.memLimit / 1024),t=\(cost.opsLimit),p=1"
        dummies = Lock([current: Self.dummy(ofKind: current)!])
    }

    /// The kinds in the set.
    public var kinds: Set<String> { dummies.withLock { Set($0.keys) } }

    /// The SQL regular expression (POSIX, as PostgreSQL's `substring(… FROM …)` takes it) whose
    /// match at the start of a stored hash is its kind's prefix: `$argon2id$` with its version
    /// and parameters, `$2?$` with its cost, or `$firebase-scrypt$` with its rounds and memory
    /// cost. No match: a format not verified here.
    public static let sqlPrefixPattern = #"^(\$argon2id\$[^$]*\$[^$]*|\$2[aby]\$[0-9][0-9]|\$firebase-scrypt\$[^$]*)"#

    /// The kind of a stored hash, or of its prefix as ``sqlPrefixPattern`` cuts it; nil when it
    /// is not argon2id, bcrypt or Firebase scrypt. bcrypt's variants (`2a`, `2b`, `2y`) cost the
    /// same: one kind.
    public static func kind(of hash: some StringProtocol) -> String? {
        let parts = hash.split(separator: "$", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].isEmpty else { return nil }
        if parts[1] == "argon2id" && parts.count >= 4 {
            guard parts[2].hasPrefix("v="), parts[3].hasPrefix("m="),
                  parts[2].allSatisfy(isParameterCharacter), parts[3].allSatisfy(isParameterCharacter)
            else { return nil }
            return "$argon2id$\(parts[2])$\(parts[3])"
        }
        if ["2a", "2b", "2y"].contains(parts[1]), parts[2].count == 2, parts[2].allSatisfy(\.isASCIIDigit) {
            return "$2b$\(parts[2])"
        }
        if parts[1] == FirebaseScrypt.family, let cost = FirebaseScrypt.parseCost(parts[2]),
           FirebaseScrypt.Parameters(signerKey: [0], saltSeparator: [], rounds: cost.rounds, memCost: cost.memCost).check() == nil {
            return "$\(FirebaseScrypt.family)$\(parts[2])"
        }
        return nil
    }

    /// Replaces the set with the kinds of these prefixes (from the users table; nil or
    /// unrecognised ones count as the current kind), plus the current kind.
    public func replace(withPrefixes prefixes: [String?]) {
        var kinds = Set(prefixes.compactMap { $0.flatMap { Self.kind(of: $0) } })
        kinds.insert(current)
        dummies.withLock { dummies in
            dummies = dummies.filter { kinds.contains($0.key) }
            for kind in kinds where dummies[kind] == nil { dummies[kind] = Self.dummy(ofKind: kind) }
        }
    }

    /// Adds the kind of `storedHash` if it is not in the set yet.
    public func insert(kindOf storedHash: String) {
        let kind = Self.kind(of: storedHash) ?? current
        dummies.withLock { dummies in
            if dummies[kind] == nil { dummies[kind] = Self.dummy(ofKind: kind) }
        }
    }

    /// Checks a log-in's password with `check` (which verifies one hash) against `storedHash`
    /// (nil: no such account). Unless it matches, also against the dummy of every other kind in
    /// the set, and against the dummy of the stored hash's own kind when that hash could not be
    /// checked (a format not verified here, or malformed): a failed log-in does one verification
    /// of every kind, whichever account it named. Returns the stored hash's result (`.invalid`
    /// without one).
    public func verify(
        _ password: [UInt8], against storedHash: String?, check: (_ hash: String) -> VerifyResult
    ) -> VerifyResult {
        let dummies = self.dummies.withLock { $0 }
        var result = VerifyResult.invalid
        var ownKind: String? = nil
        if let storedHash {
            result = check(storedHash)
            if result.isValid { return result }
            if result != .unrecognizedHash { ownKind = Self.kind(of: storedHash) }
        }
        // Sorted, so that every outcome runs them in the same order.
        for (kind, dummy) in dummies.sorted(by: { $0.key < $1.key }) where kind != ownKind {
            _ = check(dummy)
        }
        return result
    }

    // MARK: Dummies

    /// A hash of `kind` with a random salt and digest: verifying a password against it does the
    /// same work as against a real hash of that kind (and matches no password anyone knows).
    static func dummy(ofKind kind: String) -> String? {
        if kind.hasPrefix("$argon2id$") {
            // libsodium's PHC strings: 16 bytes of salt and 32 of digest, unpadded base64.
            return "\(kind)$\(base64(SecureRandom.bytes(16)))$\(base64(SecureRandom.bytes(32)))"
        }
        if kind.hasPrefix("$2") {
            // 22 characters of salt and 31 of digest from bcrypt's alphabet.
            return "\(kind)$" + String(decoding: SecureRandom.bytes(53).map { Bcrypt.alphabet[Int($0 & 63)] }, as: UTF8.self)
        }
        if kind.hasPrefix("$\(FirebaseScrypt.family)$") {
            return FirebaseScrypt.dummy(ofKind: kind)
        }
        return nil
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
        var out = [CChar](repeating: 0, count: sodium_base64_encoded_len(bytes.count, variant))
        _ = sodium_bin2base64(&out, out.count, bytes, bytes.count, variant)
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Characters of argon2id's version and parameter fields (`v=19`, `m=65536,t=2,p=1`).
    private static func isParameterCharacter(_ character: Character) -> Bool {
        character.isASCIIDigit || character == "=" || character == "," || ("a"..."z").contains(character)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
