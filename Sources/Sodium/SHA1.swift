/// SHA-1 (FIPS 180-4 §6.1), for looking passwords up in breached-password corpora, which are
/// published as SHA-1 hashes. Not for anything that needs collision resistance. libsodium has
/// no SHA-1, and one digest of a short password is too little work to bring in libcrypto for.
public enum SHA1 {
    /// The digest length in bytes (20).
    public static let byteCount = 20

    /// Returns the 20-byte SHA-1 digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let digest = bytes.withContiguousStorageIfAvailable { hash($0) }
        return digest ?? Array(bytes).withUnsafeBufferPointer { hash($0) }
    }

    /// Returns the 20-byte SHA-1 digest of the UTF-8 bytes of `string`.
    public static func digest(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash($0) }
    }

    /// Returns the SHA-1 digest of the UTF-8 bytes of `string` as 40 lowercase hex characters.
    public static func hexDigest(_ string: String) -> String {
        SecureRandom.hex(digest(string))
    }

    private static func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var block = [UInt8](repeating: 0, count: 64)
        let fullBlocks = input.count / 64
        for index in 0..<fullBlocks {
            compress(&state, UnsafeBufferPointer(rebasing: input[index * 64..<index * 64 + 64]))
        }
        // Padding (§5.1.1): the rest, 0x80, zeros, then the length in bits as a big-endian UInt64,
        // in one block or two.
        let rest = input.count - fullBlocks * 64
        for index in 0..<rest { block[index] = input[fullBlocks * 64 + index] }
        block[rest] = 0x80
        if rest >= 56 {
            block.withUnsafeBufferPointer { compress(&state, $0) }
            for index in 0..<64 { block[index] = 0 }
        }
        let bits = UInt64(input.count) &* 8
        for index in 0..<8 { block[56 + index] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * index)) }
        block.withUnsafeBufferPointer { compress(&state, $0) }
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            out.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
        return out
    }

    /// One 64-byte block into `state` (§6.1.2).
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ block: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for t in 0..<16 {
                w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
            }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = state
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
