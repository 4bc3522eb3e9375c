internal import CSodium
import Signatures

/// Password hashes exported by Firebase Authentication (`firebase auth:export`), verified so that
/// an imported user logs in with the password they had.
///
/// Firebase's scrypt is modified: scrypt (N = 2^memCost, r = rounds, p = 1, 64 bytes) of the
/// password, salted with the user's salt followed by the project's salt separator, gives a key
/// whose first 32 bytes encrypt the project's signer key with AES-256-CTR from a zero counter;
/// the ciphertext is the user's password hash. The project's values (signer key, salt separator,
/// rounds, memory cost) are stored in each hash, so that every hash verifies on its own:
///
///     $firebase-scrypt$r=8,m=14$<signer key>$<salt separator>$<salt>$<hash>
///
/// with each byte string in standard padded base64 (as the export gives them). A match always
/// reports `needsRehash`: the hash is replaced by argon2id at the next log-in.
public enum FirebaseScrypt {
    /// The project-wide settings of Firebase's password hashing (the console's "Password hash
    /// parameters").
    public struct Parameters: Sendable, Hashable {
        /// The signer key, decoded from `base64_signer_key`.
        public var signerKey: [UInt8]
        /// The salt separator, decoded from `base64_salt_separator`.
        public var saltSeparator: [UInt8]
        /// scrypt's block size `r` (`rounds`).
        public var rounds: Int
        /// The base-2 logarithm of scrypt's cost `N` (`mem_cost`).
        public var memCost: Int

        /// Parameters; ``check()`` tells whether they are usable.
        public init(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memCost: Int) {
            self.signerKey = signerKey
            self.saltSeparator = saltSeparator
            self.rounds = rounds
            self.memCost = memCost
        }

        /// Why these parameters cannot verify a hash, or nil when they can: rounds 1–32, memory
        /// cost 1–20, at most 256 MiB of scrypt memory (128 · rounds · 2^memCost bytes), a signer
        /// key of 1–1024 bytes and a salt separator of at most 64.
        public func check() -> String? {
            guard (1...32).contains(rounds) else { return "rounds must be 1 to 32, not \(rounds)" }
            guard (1...20).contains(memCost) else { return "the memory cost must be 1 to 20, not \(memCost)" }
            guard 128 * rounds << memCost <= FirebaseScrypt.maxMemory else {
                return "rounds \(rounds) with memory cost \(memCost) need more than 256 MiB per password check"
            }
            guard (1...1024).contains(signerKey.count) else { return "the signer key must be 1 to 1024 bytes" }
            guard saltSeparator.count <= 64 else { return "the salt separator must be at most 64 bytes" }
            return nil
        }
    }

    /// The family name in stored hashes.
    public static let family = "firebase-scrypt"
    /// Most memory one verification may take.
    static let maxMemory = 256 << 20
    /// Longest salt accepted (Firebase's are 10 bytes or so).
    static let maxSaltCount = 1024

    /// The stored form of a user's exported hash and salt (both decoded from base64) under the
    /// project's `parameters`; nil when the parameters are unusable, the salt is empty or too
    /// long, or the hash's length is not the signer key's (the export's hash is the encrypted key).
    public static func storedHash(hash: [UInt8], salt: [UInt8], parameters: Parameters) -> String? {
        guard parameters.check() == nil, (1...maxSaltCount).contains(salt.count), hash.count == parameters.signerKey.count
        else { return nil }
        return "\(kindPrefix(parameters))$\(base64(parameters.signerKey))$\(base64(parameters.saltSeparator))"
            + "$\(base64(salt))$\(base64(hash))"
    }

    /// `$firebase-scrypt$r=…,m=…`: the kind of hash these parameters make (its cost).
    static func kindPrefix(_ parameters: Parameters) -> String {
        "$\(family)$r=\(parameters.rounds),m=\(parameters.memCost)"
    }

    /// The parts of a stored hash; nil when it is not one (or its parameters are unusable).
    static func parse(_ stored: String) -> (parameters: Parameters, salt: [UInt8], hash: [UInt8])? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 7, parts[0].isEmpty, parts[1] == family,
              let cost = parseCost(parts[2]),
              let signerKey = decode(parts[3]), let separator = decode(parts[4]),
              let salt = decode(parts[5]), let hash = decode(parts[6])
        else { return nil }
        let parameters = Parameters(signerKey: signerKey, saltSeparator: separator, rounds: cost.rounds, memCost: cost.memCost)
        guard parameters.check() == nil, (1...maxSaltCount).contains(salt.count), hash.count == signerKey.count
        else { return nil }
        return (parameters, salt, hash)
    }

    /// `r=8,m=14` → (8, 14); nil for anything else.
    static func parseCost(_ text: some StringProtocol) -> (rounds: Int, memCost: Int)? {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[0].hasPrefix("r="), fields[1].hasPrefix("m="),
              let rounds = Int(fields[0].dropFirst(2)), let memCost = Int(fields[1].dropFirst(2)),
              String(rounds) == fields[0].dropFirst(2), String(memCost) == fields[1].dropFirst(2)
        else { return nil }
        return (rounds, memCost)
    }

    /// The hash Firebase would export for `password` with this salt and these parameters; nil
    /// when libsodium or libcrypto fails (out of memory).
    public static func hash(_ password: [UInt8], salt: [UInt8], parameters: Parameters) -> [UInt8]? {
        precondition(parameters.check() == nil)
        SodiumLibrary.ensureInitialized()
        var key = [UInt8](repeating: 0, count: 64)
        defer { wipe(&key) }
        let salted = salt + parameters.saltSeparator
        // libsodium's arguments are nonnull: an empty password still needs a pointer.
        let phrase = password.isEmpty ? [0] : password
        let result = crypto_pwhash_scryptsalsa208sha256_ll(
            phrase, password.count, salted, salted.count, UInt64(1) << UInt64(parameters.memCost),
            UInt32(parameters.rounds), 1, &key, key.count)
        guard result == 0 else { return nil }
        return try? AESCTR.apply(key: Array(key.prefix(AESCTR.keyByteCount)), to: parameters.signerKey)
    }

    /// Checks `password` against a stored Firebase hash: `.valid(needsRehash: true)` on a
    /// match, `.unrecognizedHash` when `stored` is not a usable Firebase hash.
    static func verify(_ password: [UInt8], against stored: String) -> VerifyResult {
        guard let (parameters, salt, expected) = parse(stored) else { return .unrecognizedHash }
        guard var computed = hash(password, salt: salt, parameters: parameters) else { return .unrecognizedHash }
        defer { wipe(&computed) }
        let equal = computed.withUnsafeBytes { computed in
            expected.withUnsafeBytes { expected in sodium_memcmp(computed.baseAddress!, expected.baseAddress!, expected.count) == 0 }
        }
        return equal ? .valid(needsRehash: true) : .invalid
    }

    /// A hash of the kind `$firebase-scrypt$r=…,m=…` with random values: verifying against it
    /// costs what verifying against a real one of that kind does (the signer key of Firebase's
    /// usual 64 bytes).
    static func dummy(ofKind kind: String) -> String? {
        let parts = kind.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == family, let cost = parseCost(parts[2]) else { return nil }
        let parameters = Parameters(
            signerKey: SecureRandom.bytes(64), saltSeparator: SecureRandom.bytes(1), rounds: cost.rounds, memCost: cost.memCost)
        return storedHash(hash: SecureRandom.bytes(64), salt: SecureRandom.bytes(10), parameters: parameters)
    }

    /// Standard base64 with padding, as Firebase's export writes it.
    public static func base64(_ bytes: [UInt8]) -> String {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        var out = [CChar](repeating: 0, count: sodium_base64_encoded_len(bytes.count, variant))
        _ = sodium_bin2base64(&out, out.count, bytes, bytes.count, variant)
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Standard padded base64 decoded; nil when `text` is not exactly that (no spaces).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { return [] }
        var out = [UInt8](repeating: 0, count: bytes.count / 4 * 3 + 3)
        var length = 0
        // Decodes and tells whether the whole text was read (libsodium stops at a bad character).
        let whole = bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { input -> Bool in
                var end: UnsafePointer<CChar>? = nil
                let result = sodium_base642bin(
                    &out, out.count, input.baseAddress!, input.count, nil, &length, &end,
                    Int32(sodium_base64_VARIANT_ORIGINAL))
                return result == 0 && end == input.baseAddress! + input.count
            }
        }
        guard whole else { return nil }
        return Array(out.prefix(length))
    }
}
