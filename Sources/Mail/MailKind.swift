/// The kinds of message Gatehouse sends; the raw value is what the outbox stores.
public enum MailKind: String, Sendable, CaseIterable {
    case verifyEmail = "verify_email", resetPassword = "reset_password", passwordChanged = "password_changed",
        emailChanged = "email_changed", accountDeleted = "account_deleted"
    /// A provider linked, replaced or unlinked: the message lists its ``SignInChange``s.
    case signInChanged = "sign_in_changed"
    /// What a reset that confirmed the address for the first time removed (its ``SignInChange``s).
    case signInMethodsRemoved = "sign_in_methods_removed"
    /// The user let an app in for the first time (an OAuth consent): the message lists the app
    /// (its ``SignInChange/appAuthorized(_:)``).
    case appAuthorized = "app_authorized"

    /// A sign-in from a device (user agent and network) the account had not used for 90 days.
    case newDeviceSignIn = "new_device_sign_in"
    /// Two-step verification (TOTP) turned on, or off.
    case twoStepEnabled = "two_step_enabled", twoStepDisabled = "two_step_disabled"
    /// A recovery code was used to sign in.
    case recoveryCodeUsed = "recovery_code_used"
    /// A passkey added to the account, or removed from it.
    case passkeyAdded = "passkey_added", passkeyRemoved = "passkey_removed"
    /// An operator disabled the account.
    case accountDisabled = "account_disabled"

    /// Whether the message lists its ``MailContent/signInChanges``.
    var listsSignInChanges: Bool { self == .signInChanged || self == .signInMethodsRemoved || self == .appAuthorized }

    /// Whether the message is a security notice: it says when and from where the change was made
    /// (``MailContent/occurrence``).
    public var isSecurityNotice: Bool {
        switch self {
        case .newDeviceSignIn, .twoStepEnabled, .twoStepDisabled, .recoveryCodeUsed, .passkeyAdded, .passkeyRemoved,
            .accountDisabled:
            true
        default: false
        }
    }
}
