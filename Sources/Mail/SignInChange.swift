/// A change to the ways into an account that a notice reports: a provider linked, replaced or
/// unlinked by the account's owner, an app the owner let sign them in, or what a password reset
/// removed because the address it proved had not been confirmed before (ways in added then may be
/// someone else's).
public enum SignInChange: Sendable, Hashable {
    /// Log-in with the provider (its configured name) was added.
    case providerAdded(String)
    /// Log-in with the provider now uses another account of that provider.
    case providerReplaced(String)
    /// Log-in with the provider was removed.
    case providerRemoved(String)
    /// This many passkeys were removed.
    case passkeysRemoved(Int)
    /// The guest (anonymous) id was removed.
    case guestAccessRemoved
    /// Two-step verification (TOTP) stays on: a reset proves a mailbox, never a second factor.
    case twoStepVerificationKept
    /// The app (its name as the consent screen showed it) may sign the user in.
    case appAuthorized(String)

    /// The form the outbox keeps: `provider_added:<name>`, `passkeys_removed:<count>`, ….
    public var storedValue: String {
        switch self {
        case .providerAdded(let provider): "provider_added:" + provider
        case .providerReplaced(let provider): "provider_replaced:" + provider
        case .providerRemoved(let provider): "provider_removed:" + provider
        case .passkeysRemoved(let count): "passkeys_removed:\(count)"
        case .guestAccessRemoved: "guest_access_removed"
        case .twoStepVerificationKept: "two_step_verification_kept"
        case .appAuthorized(let name): "app_authorized:" + name
        }
    }

    /// The change a ``storedValue`` stands for; nil for one this build does not know.
    public init?(storedValue: String) {
        let parts = storedValue.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let argument = parts.count == 2 ? String(parts[1]) : nil
        switch (parts[0], argument) {
        case ("provider_added", let provider?) where !provider.isEmpty: self = .providerAdded(provider)
        case ("provider_replaced", let provider?) where !provider.isEmpty: self = .providerReplaced(provider)
        case ("provider_removed", let provider?) where !provider.isEmpty: self = .providerRemoved(provider)
        case ("passkeys_removed", let count?):
            guard let count = Int(count), count > 0 else { return nil }
            self = .passkeysRemoved(count)
        case ("guest_access_removed", nil): self = .guestAccessRemoved
        case ("two_step_verification_kept", nil): self = .twoStepVerificationKept
        case ("app_authorized", let name?) where !name.isEmpty: self = .appAuthorized(name)
        default: return nil
        }
    }
}
