public import Signatures
internal import Synchronization
internal import WebAuthn

/// The libcrypto work of building public keys, as `PublicKey.observer` reports it: for tests that
/// show a key was refused before libcrypto saw it, or built without the costly check. Only work
/// of the calling task is seen, so tests running in parallel do not count each other's keys.
public enum KeyWork {
    /// Runs `body` and returns every step of key-building work it caused, in order.
    public static func during(_ body: () throws -> Void) rethrows -> [PublicKey.Work] {
        let steps = Mutex<[PublicKey.Work]>([])
        try PublicKey.$observer.withValue({ step in steps.withLock { $0.append(step) } }) { try body() }
        return steps.withLock { $0 }
    }

    /// The big-endian bytes of an odd number of exactly `bits` bits (a multiple of 8, at least 16):
    /// the shape of an RSA modulus, without the cost of making a real key of that size.
    public static func oddModulus(bits: Int) -> [UInt8] {
        precondition(bits % 8 == 0 && bits >= 16)
        return [0xc1] + [UInt8](repeating: 0x35, count: bits / 8 - 2) + [0x01]
    }

    /// The COSE map of an RS256 key with modulus `modulus` and exponent 65537.
    public static func rsaKey(modulus: [UInt8]) -> [UInt8] {
        COSEKey.encode(.rsa(modulus: modulus, exponent: [1, 0, 1]))
    }
}
