internal import CSodium

/// One-time, thread-safe initialization of libsodium.
///
/// Every public entry point of this module calls `ensureInitialized()` before its first C call.
/// `sodium_init` runs exactly once: Swift initializes a `static let` lazily under `swift_once`,
/// which is thread-safe, so concurrent first uses wait for the one call instead of racing.
enum SodiumLibrary {
    /// `sodium_init()`: 0 on success, 1 if something else in the process already initialized
    /// the library (also fine), -1 on failure.
    private static let initResult: Int32 = sodium_init()

    /// Initializes libsodium on first use; stops the process if it cannot be initialized.
    ///
    /// There is no way to recover: without `sodium_init`, `randombytes_*` and the password hash
    /// are unsafe to call, so a clear fatal error is better than a weak token or a crash later.
    @inline(__always)
    static func ensureInitialized() {
        if initResult < 0 {
            fatalError("libsodium: sodium_init() failed (returned \(initResult)); secure random and password hashing are unavailable")
        }
    }
}
