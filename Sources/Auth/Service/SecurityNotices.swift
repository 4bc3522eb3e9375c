import Foundation
import Mail
import Postgres
import Sodium
import Signatures

/// Security notices (NIST SP 800-63B §4.6): the user is mailed, through the outbox and in the
/// request's language, when the account is signed in to from a new device, two-step verification
/// is turned on or off, a recovery code is used, a passkey is added or removed, or an operator
/// disables the account. Each says what happened, when and from where (the request's address and
/// User-Agent), and what to do if it was not the user. Nothing is sent with
/// `GATEHOUSE_SECURITY_NOTICES=off`, nor to a user without an email; the outbox's hourly cap per
/// address and kind applies.
///
/// A device is a User-Agent and a network (an IPv4 /24, an IPv6 /64), kept per user as the digest
/// of both with when it was last seen (`user_devices`). A sign-in from one not seen for
/// ``deviceMemory`` is new, unless the user has signed in from no other device: the first session
/// ever (a sign-up's) only records its device.
struct SecurityNotices: Sendable {
    let pool: Pool
    let enabled: Bool
    let mail: AccountMail
    /// Reports a notice that could not be added after its change was made (the change stands).
    let log: @Sendable (String) -> Void

    /// How long a device stays known without a sign-in from it.
    static let deviceMemory: TimeInterval = 90 * 24 * 3600
    /// How stale a device's last sighting may get before a sign-in from it writes it again.
    static let sightingResolution: TimeInterval = 3600

    init(pool: Pool, configuration: AuthConfiguration, linkBox: SecretBox?, log: @escaping @Sendable (String) -> Void) {
        self.pool = pool
        self.enabled = configuration.securityNotices
        self.mail = AccountMail(configuration.accounts, linkBox: linkBox)
        self.log = log
    }

    /// Adds the notice of `kind` about `user` in `tx`, the transaction of the change.
    func send(_ kind: MailKind, about user: User, request: AuthRequest, at time: Date, in tx: Transaction) throws {
        guard enabled, let email = user.email else { return }
        var message = mail.message(kind, to: email, about: user, request: request, token: nil)
        message.occurrence = (request.clientAddress, request.userAgent.map { String($0.prefix(Session.userAgentLimit)) })
        _ = try AccountStore.send(message, context: mail.context(time), in: tx)
    }

    /// Adds the notice of `kind` about `user` in a transaction of its own, after the change was
    /// committed by a statement of its own; a failure is logged.
    func send(_ kind: MailKind, about user: User, request: AuthRequest, at time: Date) {
        guard enabled, user.email != nil else { return }
        do {
            try pool.withConnection(retry: .never) { connection in
                try connection.transaction { tx in try send(kind, about: user, request: request, at: time, in: tx) }
            }
        } catch {
            log("security notice \(kind.rawValue) not added: \(error)")
        }
    }

    /// The digest of the request's device (User-Agent and network).
    static func device(_ request: AuthRequest) -> [UInt8] {
        SHA256.digest((request.userAgent ?? "") + "\n" + ClientNetwork.deviceNetwork(of: request.clientAddress))
    }

    /// Records the request's device as seen by the user in `tx` (a sign-up: the first session ever).
    func recordDevice(userId: String, request: AuthRequest, at time: Date, in tx: Transaction) throws {
        guard enabled else { return }
        try tx.execute("""
            INSERT INTO user_devices (user_id, device_digest, last_seen_at) VALUES (\(userId), \(Self.device(request)), \(time))
            ON CONFLICT (user_id, device_digest) DO UPDATE SET last_seen_at = excluded.last_seen_at
            """)
    }

    /// After a sign-in of `user` (a new session of any kind but `logInAs`): records the device,
    /// and adds the notice of a new device when it was not seen for ``deviceMemory`` and the user
    /// has signed in from another device before. Of concurrent first sign-ins from one device,
    /// the one whose insert wins sends it. A failure is logged: the session stands.
    ///
    /// The sighting is one statement committed on its own, which every sign-in pays for; most
    /// only read: a device seen within ``sightingResolution`` is not written again, nor is its row
    /// locked (an `ON CONFLICT` that finds it would lock it, and the commit would then wait for
    /// its WAL flush). The notice, rarely due, is added after it in a transaction of its own
    /// (``send(_:about:request:at:)``), so a notice that cannot be added is logged and not tried
    /// again at the next sign-in.
    func signedIn(_ user: User, request: AuthRequest, at time: Date) {
        guard enabled else { return }
        let device = Self.device(request)
        let stale = time.addingTimeInterval(-Self.sightingResolution)
        let due: Bool
        do {
            due = try pool.withConnection(retry: .never) { connection in
                guard let row = try connection.queryFirst("""
                    WITH prior AS (
                        SELECT last_seen_at FROM user_devices WHERE user_id = \(user.objectId) AND device_digest = \(device)
                    ), seen AS (
                        INSERT INTO user_devices (user_id, device_digest, last_seen_at)
                        SELECT \(user.objectId), \(device), \(time) WHERE NOT EXISTS (SELECT 1 FROM prior WHERE last_seen_at >= \(stale))
                        ON CONFLICT (user_id, device_digest) DO UPDATE SET last_seen_at = excluded.last_seen_at
                            WHERE user_devices.last_seen_at < \(stale)
                        RETURNING xmax = 0 AS inserted
                    )
                    SELECT EXISTS (SELECT 1 FROM user_devices d WHERE d.user_id = \(user.objectId) AND d.device_digest <> \(device)),
                           (SELECT last_seen_at FROM prior), coalesce((SELECT inserted FROM seen), false)
                    """) else { return false }
                let hadOthers = try row.decode(Bool.self, at: 0)
                let lastSeen = try row.decode(Date?.self, at: 1)
                let inserted = try row.decode(Bool.self, at: 2)
                let isNew = lastSeen.map { $0 < time.addingTimeInterval(-Self.deviceMemory) } ?? inserted
                return hadOthers && isNew
            }
        } catch {
            log("new-device notice not checked: \(error)")
            return
        }
        if due { send(.newDeviceSignIn, about: user, request: request, at: time) }
    }
}
