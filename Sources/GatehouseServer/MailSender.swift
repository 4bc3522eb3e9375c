import Auth
import Curl
import Foundation
import Threading
import Mail
import Postgres
import Sodium

/// Delivers the mail outbox over SMTP on an ``OutboxWorker`` (woken by `NOTIFY gatehouse_mail`,
/// its rows held by a renewed lease, see there).
///
/// Each round's batch is sent one message after the other in order of creation: each one's
/// sealed link is opened, the message rendered with ``MailComposer`` and sent with
/// ``SMTPClient``; a link is in the clear only in memory, for that delivery. Logs and stored
/// errors name a message by its Message-ID only: never its link, token or body.
final class MailSender: @unchecked Sendable {
    // @unchecked: `worker` is set once, in init, before any other thread sees the sender.

    /// Messages delivered, given up and retried since start (for `/metrics`).
    struct Counts: Sendable, Equatable {
        var sent = 0
        var failed = 0
        var retries = 0
    }

    let store: OutboxStore
    let client: SMTPClient
    let composer: MailComposer
    /// Opens the links sealed in the outbox (`GATEHOUSE_SECRET_KEY`, purpose `mailLinks`).
    let linkBox: SecretBox
    /// `GATEHOUSE_MAIL_RETRY_BASE`.
    let retryBase: Int
    private let logger: Logger
    private var worker: OutboxWorker<OutboxStore.StoredMessage>!

    private let counts = Lock(Counts())

    /// A sender for the outbox of `store`, listening for new mail on `connection` (nil: polling
    /// only); call ``start()``.
    init(
        store: OutboxStore, connection: ConnectionConfiguration?, client: SMTPClient, composer: MailComposer,
        linkBox: SecretBox, retryBase: Int, logger: Logger, batchSize: Int = 10, pollInterval: Double = 30
    ) {
        self.store = store
        self.client = client
        self.composer = composer
        self.linkBox = linkBox
        self.retryBase = retryBase
        self.logger = logger
        worker = OutboxWorker(
            name: "mail", lease: store.lease, channel: AuthMigrations.Channel.mail, connection: connection, logger: logger,
            batchSize: batchSize, pollInterval: pollInterval,
            queues: [.init(
                name: "smtp", claim: { [store] in try store.claim(limit: $0) },
                secondsUntilNextDue: { [store] in try store.lease.secondsUntilNextDue() },
                deliver: { [unowned self] in try deliver($0) })],
            id: \.id)
    }

    /// Seconds one delivery may take (the SMTP client's whole-transfer timeout).
    static let smtpTimeout = 30

    /// Wakes the sender on `NOTIFY` (none when polling); its reconnects are counted for `/metrics`.
    var listener: NotificationListener? { worker.listener }

    /// Starts listening and the sending thread.
    func start() { worker.start() }

    /// Stops the thread after the message being sent (if any); messages of its batch not yet
    /// tried are made due again for the other instances (or the next start).
    func stop() { worker.stop() }

    /// Delivered, given up and retried messages so far.
    var deliveryCounts: Counts { counts.withLock { $0 } }

    /// Pending messages and the oldest one's age in seconds, as of the end of the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { worker.pendingSummary }

    private var isStopping: Bool { worker.isStopping }

    /// Sends `batch` in order, until the sender stops.
    private func deliver(_ batch: [OutboxStore.StoredMessage]) throws {
        for message in batch {
            if isStopping { return }
            try deliver(message)
            worker.finished(message)
        }
    }

    private func deliver(_ message: OutboxStore.StoredMessage) throws {
        var link: String? = nil
        if let sealed = message.sealedLink {
            guard let opened = linkBox.open(sealed) else {
                // Not a permanent failure: an instance with the right key may deliver it on a retry.
                return try recordFailure(
                    message, "the link cannot be opened: GATEHOUSE_SECRET_KEY is not the key it was sealed with", permanent: false)
            }
            link = String(decoding: opened, as: UTF8.self)
        }
        guard let composed = composer.compose(message, link: link, date: Date()) else {
            return try recordFailure(message, "unknown kind or language", permanent: true)
        }
        do throws(SMTPError) {
            try client.send(from: composer.from.address, to: [message.recipient], message: composed.data)
        } catch {
            return try recordFailure(message, error.description, permanent: error.isPermanent)
        }
        try recordSent(message)
        counts.withLock { $0.sent += 1 }
        logger.debug("mail sent", ["messageId": .string(message.messageId), "kind": .string(message.kind)])
    }

    /// Records a failed attempt (`error`: safe to store and log, no link or content), counts and logs it.
    private func recordFailure(_ message: OutboxStore.StoredMessage, _ error: String, permanent: Bool) throws {
        let outcome = try store.markFailed(
            id: message.id, attempts: message.attempts, error: error, permanent: permanent, retryBase: retryBase)
        counts.withLock {
            if outcome == .failed { $0.failed += 1 } else { $0.retries += 1 }
        }
        logger.warn(
            outcome == .failed ? "mail delivery failed, given up" : "mail delivery failed, will retry",
            ["messageId": .string(message.messageId), "attempts": .int(message.attempts), "error": .string(error)])
    }
}

extension MailSender {
    /// Marks a delivered message sent. It is out, so should the database be unreachable or
    /// read-only just then (a failover), marking it (an idempotent update) is tried again every
    /// half second until the database takes it, the sender stops or a lease's length has passed:
    /// otherwise the delivered one would go out again once its lease ran out.
    private func recordSent(_ message: OutboxStore.StoredMessage) throws {
        let deadline = ContinuousClock.now + .seconds(OutboxLease.duration)
        var warned = false
        while true {
            do {
                return try store.markSent(id: message.id)
            } catch let error as PostgresError where error.isUnavailable && !isStopping && ContinuousClock.now < deadline {
                if !warned {
                    logger.warn(
                        "mail sent but not recorded yet, trying again",
                        ["messageId": .string(message.messageId), "error": .string(String(describing: error))])
                    warned = true
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }
}

extension MailComposer {
    /// The message of an outbox row with its `link` opened (nil: none, or not to be shown); nil
    /// for a kind or language this build does not know. The mail says how long the link works:
    /// from the row's creation, when its token was made, to the link's expiry.
    func compose(_ message: OutboxStore.StoredMessage, link: String?, date: Date) -> ComposedMail? {
        guard let kind = MailKind(rawValue: message.kind), let language = MailLanguage(rawValue: message.language) else {
            return nil
        }
        let lifetime = message.linkExpiresAt.map { Int($0.timeIntervalSince(message.createdAt).rounded()) }
        let content = MailContent(
            kind: kind, language: language, recipient: message.recipient, username: message.username, link: link,
            linkLifetime: lifetime, signInChanges: message.signInChanges, occurrence: message.occurrence)
        return compose(content, messageId: message.messageId, date: date)
    }
}
