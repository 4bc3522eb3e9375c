import Foundation
import Mail
import Sodium
import Signatures

/// The outbox messages of the account lifecycle (verification, reset, change and deletion
/// notices) as the configuration shapes them: links under the public URL, Message-IDs on its
/// host, the per-address hourly cap, links sealed for the outbox and how long they work. Pure:
/// the stores add the messages in their transactions.
struct AccountMail: Sendable {
    let publicURL: String
    let messagesPerAddressPerHour: Int
    /// The host of the public URL: the right-hand side of Message-IDs.
    let messageIdDomain: String
    /// Seconds a verification and a reset link work (what the mail says).
    let verifyLinkLifetime: Int
    let resetLinkLifetime: Int
    /// Seals links in the outbox (nil: a link mail is an internal error).
    let linkBox: SecretBox?

    init(_ policy: AccountPolicy, linkBox: SecretBox?) {
        publicURL = policy.publicURL
        messagesPerAddressPerHour = policy.messagesPerAddressPerHour
        messageIdDomain = URL(string: policy.publicURL)?.host ?? "localhost"
        verifyLinkLifetime = policy.verifyTokenLifetime
        resetLinkLifetime = policy.resetTokenLifetime
        self.linkBox = linkBox
    }

    /// The outbox message of `kind` to `recipient` about `user`, in the request's language, with
    /// the link for `token` (verify and reset kinds), which works for the policy's lifetime of
    /// that kind of token, and the sign-in changes it lists (sign-in kinds).
    func message(
        _ kind: MailKind, to recipient: String, about user: User, request: AuthRequest, token: String?,
        signInChanges: [SignInChange] = []
    ) -> OutboxStore.Message {
        let link = token.map { token in
            let path = kind == .resetPassword ? "reset-password" : "verify-email"
            return "\(publicURL)/\(path)?token=\(Self.queryValue(token))&username=\(Self.queryValue(user.username))"
        }
        return OutboxStore.Message(
            kind: kind.rawValue, userId: user.objectId, recipient: recipient, username: user.username,
            language: MailLanguage(acceptLanguage: request.acceptLanguage).rawValue, link: link,
            tokenDigest: token.map { SHA256.digest($0) },
            linkLifetime: token == nil ? nil : kind == .resetPassword ? resetLinkLifetime : verifyLinkLifetime,
            signInChanges: signInChanges)
    }

    /// The verification mail of a new user's `email` with the link for `token`, and the token as
    /// stored: written in the transaction that inserts the user (sign-up, a provider's sign-up).
    func verification(
        to email: String, about user: User, request: AuthRequest, token: String, at time: Date
    ) -> (message: OutboxStore.Message, token: AccountStore.NewToken) {
        (message(.verifyEmail, to: email, about: user, request: request, token: token),
         AccountStore.NewToken(digest: SHA256.digest(token), expiresAt: time.addingTimeInterval(Double(verifyLinkLifetime))))
    }

    /// What the outbox checks a message against at `time`.
    func context(_ time: Date) -> AccountStore.MailContext {
        AccountStore.MailContext(perHour: messagesPerAddressPerHour, messageIdDomain: messageIdDomain, now: time, linkBox: linkBox)
    }

    /// A query value percent-encoded: everything but RFC 3986's unreserved characters.
    static func queryValue(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return out
    }
}
