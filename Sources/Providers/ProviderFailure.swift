import JSON

/// Why `ProviderRegistry.verify` refused authData.
public enum ProviderFailure: Error, Sendable, Equatable {
    /// The provider is not configured, or disabled → 252 `This authentication method is unsupported.`
    case unsupported
    /// A check failed → 101 `Invalid authData for provider <name>.`; `detail` says which, for logs
    /// only (it never holds the token).
    case invalid(detail: String)
}

extension ProviderFailure {
    /// The longest token header value (`alg`, `kid`) a detail quotes, in UTF-8 bytes.
    static let maxQuotedBytes = 64

    /// A value from a token's header as a detail shows it: quoted, cut to ``maxQuotedBytes`` on a
    /// scalar boundary (a token may carry kilobytes there), "…" marking a cut; nil is "(none)".
    static func quoted(_ value: String?) -> String {
        guard let value else { return "(none)" }
        let shown = value.utf8Prefix(maxQuotedBytes)
        return "\"\(shown)\"" + (shown.utf8.count < value.utf8.count ? "…" : "")
    }
}
