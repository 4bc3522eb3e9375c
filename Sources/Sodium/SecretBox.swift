internal import CSodium

/// Authenticated secret-key encryption (libsodium `crypto_secretbox_easy`: XSalsa20-Poly1305)
/// under a key derived from the server's secret key (`GATEHOUSE_SECRET_KEY`) for one purpose,
/// so the one setting can key other things later without reusing a key.
///
/// The secret key is 32 bytes written as 64 hexadecimal characters (``newSecretKey()`` makes
/// one). A sealed value is a fresh random 24-byte nonce followed by the ciphertext and its tag.
public struct SecretBox: Sendable {
    /// The derived key (`crypto_secretbox_KEYBYTES`).
    private let key: [UInt8]

    /// The purposes keys are derived for: each an 8-byte `crypto_kdf` context. Never change one:
    /// what it sealed could no longer be opened.
    public enum Purpose: String, Sendable {
        /// TOTP secrets.
        case totp = "gh-totp_"
        /// The links (with their tokens) of mail waiting in the outbox.
        case mailLinks = "gh-mail_"
        /// The private keys that sign access tokens.
        case signingKeys = "gh-sign_"
    }

    /// Why a secret key was refused (never quotes the key).
    public struct InvalidKey: Error, Sendable, CustomStringConvertible {
        public var description: String { "must be 64 hexadecimal characters (32 random bytes), e.g. from `openssl rand -hex 32`" }
    }

    /// The box for `purpose` under `secretKey` (64 hex characters, either case, surrounding
    /// whitespace ignored).
    public init(secretKey: String, purpose: Purpose) throws(InvalidKey) {
        SodiumLibrary.ensureInitialized()
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0a, 0x0d].contains($0) }
        var hex = Array(secretKey.utf8)
        defer { wipe(&hex) }
        while let last = hex.last, isSpace(last) { hex.removeLast() }
        hex.removeFirst(hex.prefix(while: isSpace).count)
        guard hex.count == 2 * Int(crypto_kdf_KEYBYTES), hex.allSatisfy(Self.isHexDigit) else { throw InvalidKey() }
        var master = [UInt8](repeating: 0, count: Int(crypto_kdf_KEYBYTES))
        defer { wipe(&master) }
        for index in 0..<master.count {
            master[index] = Self.nibble(hex[2 * index]) << 4 | Self.nibble(hex[2 * index + 1])
        }
        var derived = [UInt8](repeating: 0, count: Int(crypto_secretbox_KEYBYTES))
        let context = Array(purpose.rawValue.utf8).map { CChar(bitPattern: $0) }
        precondition(context.count == Int(crypto_kdf_CONTEXTBYTES), "SecretBox: a purpose is 8 bytes")
        // Subkey 1 of the purpose's context; crypto_kdf_derive_from_key fails only for bad lengths.
        let result = derived.withUnsafeMutableBufferPointer { out in
            master.withUnsafeBufferPointer { key in
                crypto_kdf_derive_from_key(out.baseAddress!, out.count, 1, context, key.baseAddress!)
            }
        }
        precondition(result == 0, "crypto_kdf_derive_from_key failed")
        key = derived
    }

    /// A new random secret key: 64 lowercase hex characters.
    public static func newSecretKey() -> String {
        SecureRandom.hex(count: Int(crypto_kdf_KEYBYTES))
    }

    /// `plaintext` sealed: a random nonce, then the ciphertext with its authentication tag.
    public func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let nonce = SecureRandom.bytes(Int(crypto_secretbox_NONCEBYTES))
        var sealed = nonce + [UInt8](repeating: 0, count: plaintext.count + Int(crypto_secretbox_MACBYTES))
        let result = sealed.withUnsafeMutableBufferPointer { out in
            plaintext.withUnsafeBufferPointer { message in
                key.withUnsafeBufferPointer { key in
                    crypto_secretbox_easy(
                        out.baseAddress! + nonce.count, message.baseAddress, UInt64(message.count), out.baseAddress!, key.baseAddress!)
                }
            }
        }
        precondition(result == 0, "crypto_secretbox_easy failed")
        return sealed
    }

    /// The plaintext of a value ``seal(_:)`` made with the same key; nil when it was made with
    /// another key, is cut short or was altered.
    public func open(_ sealed: [UInt8]) -> [UInt8]? {
        let overhead = Int(crypto_secretbox_NONCEBYTES) + Int(crypto_secretbox_MACBYTES)
        guard sealed.count >= overhead else { return nil }
        let length = sealed.count - overhead
        // At least one byte, so that the output pointer is never null.
        var plaintext = [UInt8](repeating: 0, count: max(1, length))
        let result = plaintext.withUnsafeMutableBufferPointer { out in
            sealed.withUnsafeBufferPointer { input in
                key.withUnsafeBufferPointer { key in
                    let nonce = input.baseAddress!
                    let ciphertext = nonce + Int(crypto_secretbox_NONCEBYTES)
                    return crypto_secretbox_open_easy(
                        out.baseAddress!, ciphertext, UInt64(input.count - Int(crypto_secretbox_NONCEBYTES)), nonce, key.baseAddress!)
                }
            }
        }
        guard result == 0 else { return nil }
        return Array(plaintext.prefix(length))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func nibble(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: byte - 0x61 + 10
        }
    }
}
