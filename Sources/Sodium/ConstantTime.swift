internal import CSodium

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Returns whether `a` and `b` hold the same bytes, comparing in constant time (`sodium_memcmp`).
    ///
    /// Returns `false` at once when the lengths differ: the length is not treated as secret.
    public static func equals(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        let left = Array(a), right = Array(b)
        return equalBuffers(left, right)
    }

    /// Returns whether the UTF-8 bytes of `a` and `b` are equal, in constant time (`sodium_memcmp`).
    ///
    /// Returns `false` at once when the lengths differ.
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(a.utf8, b.utf8)
    }

    static func equalBuffers(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        SodiumLibrary.ensureInitialized()
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                sodium_memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0
            }
        }
    }
}
