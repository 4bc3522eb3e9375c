/// Why `ProviderRegistry.verify` refused authData.
public enum ProviderFailure: Error, Sendable, Equatable {
    /// The provider is not configured, or disabled → 252 `This authentication method is unsupported.`
    case unsupported
    /// A check failed → 101 `Invalid authData for provider <name>.`; `detail` says which, for logs
    /// only (it never holds the token).
    case invalid(detail: String)
}
