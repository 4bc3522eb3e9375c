internal import CCrypt
internal import CSodium
import Glibc

/// bcrypt verification through libxcrypt, for hashes imported from Parse Server.
///
/// `crypt_rn` is thread-safe because each call gets its own zeroed `struct crypt_data`
/// (32 KiB, heap-allocated here, wiped and freed before returning).
enum Bcrypt {
    /// A bcrypt hash is `$2?$` + two-digit cost + `$` + 22 salt + 31 digest characters.
    static let hashLength = 60

    private static let variants: [UInt8] = Array("aby".utf8)
    /// The 64 characters of bcrypt's salt and digest.
    static let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    private static let alphabetSet = Set(alphabet)

    /// Whether `hash` has the shape of a `$2a$`, `$2b$` or `$2y$` bcrypt hash.
    ///
    /// Checked here, before libxcrypt sees the string, because libxcrypt would otherwise
    /// accept other schemes too (DES, MD5, SHA-crypt) that we never want to honour.
    static func isBcrypt(_ hash: [UInt8]) -> Bool {
        let dollar = UInt8(ascii: "$")
        guard hash.count == hashLength,
              hash[0] == dollar, hash[1] == UInt8(ascii: "2"), variants.contains(hash[2]),
              hash[3] == dollar, hash[6] == dollar,
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(hash[4]),
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(hash[5])
        else { return false }
        let cost = Int(hash[4] - UInt8(ascii: "0")) * 10 + Int(hash[5] - UInt8(ascii: "0"))
        guard (4...31).contains(cost) else { return false }
        return hash[7...].allSatisfy { alphabetSet.contains($0) }
    }

    /// Verifies `password` against a hash for which `isBcrypt` is true.
    ///
    /// The password is cut at its first NUL (C strings); bcrypt itself uses at most 72 bytes.
    static func verify(_ password: [UInt8], _ hash: [UInt8]) -> VerifyResult {
        var phrase = password.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
        defer { wipe(&phrase) }
        let setting = hash.map { CChar(bitPattern: $0) } + [0]

        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            sodium_memzero(data, size)
            data.deallocate()
        }

        // crypt_rn returns NULL (never a "*0" token) on failure, e.g. a salt it rejects.
        guard let output = crypt_rn(phrase, setting, data, Int32(size)) else {
            return .unrecognizedHash
        }
        guard strlen(output) == hash.count else { return .invalid }
        let equal = hash.withUnsafeBytes { stored in
            sodium_memcmp(output, stored.baseAddress!, hash.count) == 0
        }
        return equal ? .valid(needsRehash: true) : .invalid
    }
}
