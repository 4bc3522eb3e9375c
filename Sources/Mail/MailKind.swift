/// The kinds of message Gatehouse sends; the raw value is what the outbox stores.
public enum MailKind: String, Sendable, CaseIterable {
    case verifyEmail = "verify_email", resetPassword = "reset_password", passwordChanged = "password_changed",
        emailChanged = "email_changed", accountDeleted = "account_deleted"
}
