internal import CCrypto

/// AES-256 in counter mode (libcrypto), for checking password hashes exported by Firebase
/// Authentication, whose modified scrypt encrypts the project's signer key under a key derived
/// from the password. Not an authenticated cipher: nothing here seals data.
public enum AESCTR {
    /// The key length in bytes (32).
    public static let keyByteCount = 32

    /// `input` encrypted (or decrypted: the same operation) with AES-256-CTR under `key`, the
    /// 16-byte counter block starting at `initialCounter` (all zeros when not given) and
    /// incremented as one big-endian 128-bit number per block.
    ///
    /// - Precondition: `key` is 32 bytes and `initialCounter` 16.
    public static func apply(
        key: [UInt8], initialCounter: [UInt8] = [UInt8](repeating: 0, count: 16), to input: [UInt8]
    ) throws(SignatureError) -> [UInt8] {
        precondition(key.count == keyByteCount && initialCounter.count == 16)
        guard let context = EVP_CIPHER_CTX_new() else { throw .cryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }  // also wipes the expanded key
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, initialCounter) == 1 else {
            throw .cryptoFailure("EVP_EncryptInit_ex")
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard EVP_EncryptUpdate(context, &output, &written, input, Int32(input.count)) == 1 else {
                throw .cryptoFailure("EVP_EncryptUpdate")
            }
        }
        var tail: Int32 = 0
        let final = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &tail)
        }
        guard final == 1 else { throw .cryptoFailure("EVP_EncryptFinal_ex") }
        return Array(output.prefix(Int(written + tail)))
    }
}
