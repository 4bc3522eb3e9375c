// TEMPORARY (lead): replaced by `import Mail` when branch `mail` merges.
enum MailKind: String {
    case verifyEmail = "verify_email", resetPassword = "reset_password", passwordChanged = "password_changed",
        emailChanged = "email_changed", accountDeleted = "account_deleted"
}
struct MailLanguage {
    let rawValue = "en"
    init(acceptLanguage: String?) {}
}
