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

    /// Whether the message lists its ``MailContent/signInChanges``.
    var listsSignInChanges: Bool { self == .signInChanged || self == .signInMethodsRemoved || self == .appAuthorized }
}
