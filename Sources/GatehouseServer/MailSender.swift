import Auth
import Curl
import Foundation
import Threading
import Mail
import Postgres
import Sodium

/// Delivers the mail outbox over SMTP: one thread per instance, woken by `NOTIFY gatehouse_mail`
/// (a message was written), by the listening connection (re)connecting (notifications may have
/// been missed), and by a timer when the next retry is due or, at the latest, every
/// `pollInterval` seconds (the only wake-up without a listening connection: for engines
/// without `LISTEN/NOTIFY`).
///
/// Each round claims a batch of due messages (``OutboxStore/claim(limit:lease:)``), opens each
/// one's sealed link, renders it with ``MailComposer`` and sends it with ``SMTPClient``, one after
/// the other in order of creation: a link is in the clear only in memory, for that delivery.
/// Logs and stored errors name a message by its Message-ID only: never its link, token or body.
final class MailSender: @unchecked Sendable {
    // @unchecked: every `var` is read and written with `mutex` held.

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
    let batchSize: Int
    let pollInterval: Double
    private let logger: Logger
    /// Wakes the sender on `NOTIFY` (none when polling); its reconnects are counted for `/metrics`.
    private(set) var listener: NotificationListener?

    private let mutex = ConditionMutex()
    private let wake = ConditionMutex.Condition()
    private let exited = ConditionMutex.Condition()
    /// Set by a notification (or a reconnect), cleared by the round it starts.
    private var woken = true
    /// Whether the notification connection was lost (or never made) since it last connected.
    private var lostListener = false
    private var stopping = false
    private var running = false
    private var counts = Counts()
    private var pending: (count: Int, oldestAge: Double) = (0, 0)

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
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        guard let connection else { return }
        listener = NotificationListener(
            configuration: connection, channels: [AuthMigrations.Channel.mail],
            onNotification: { [unowned self] _ in signal() },
            onConnect: { [unowned self] in
                if exchangeListenerLost(false) { logger.info("mail wake-ups on again: notification connection restored") }
                signal()
            },
            onDisconnect: { [unowned self] error in
                _ = exchangeListenerLost(true)
                logger.warn("mail wake-ups off, polling every \(Int(pollInterval)) s: notification connection lost", [
                    "error": .string(String(describing: error)),
                ])
            })
    }

    /// Seconds one delivery may take (the SMTP client's whole-transfer timeout).
    static let smtpTimeout = 30

    /// Seconds a claim holds its messages: enough to try the whole batch even if every attempt
    /// runs into the SMTP timeout. A message claimed by an instance that died is sent by another
    /// once this has passed.
    var lease: Int { batchSize * Self.smtpTimeout + 60 }

    /// Starts listening and the sending thread.
    func start() {
        mutex.withLock { running = true }
        listener?.start()
        let thread = Thread { [self] in run() }
        thread.name = "gatehouse-mail"
        thread.start()
    }

    /// Stops the thread after the message being sent (if any); messages of its batch not yet
    /// tried are made due again for the other instances (or the next start).
    func stop() {
        listener?.stop()
        mutex.withLock {
            stopping = true
            wake.signal()
            while running { mutex.wait(exited) }
        }
    }

    /// Delivered, given up and retried messages so far.
    var deliveryCounts: Counts { mutex.withLock { counts } }

    /// Pending messages and the oldest one's age in seconds, as of the end of the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { mutex.withLock { pending } }

    private func signal() {
        mutex.withLock {
            woken = true
            wake.signal()
        }
    }

    private var isStopping: Bool { mutex.withLock { stopping } }

    /// Sets ``lostListener`` and returns what it was.
    private func exchangeListenerLost(_ value: Bool) -> Bool {
        mutex.withLock {
            defer { lostListener = value }
            return lostListener
        }
    }

    private func run() {
        defer {
            mutex.withLock {
                running = false
                exited.broadcast()
            }
        }
        var summarized = ContinuousClock.now
        while !isStopping {
            var wait = pollInterval
            do {
                mutex.withLock { woken = false }
                let batch = try store.claim(limit: batchSize, lease: lease)
                try deliver(batch)
                // The backlog for /metrics: after each round, and at most once a second while
                // full batches follow each other.
                if batch.count < batchSize || ContinuousClock.now - summarized > .seconds(1) {
                    let summary = try store.pendingSummary()
                    mutex.withLock { pending = summary }
                    summarized = .now
                }
                if batch.count == batchSize { continue }
                if let due = try store.secondsUntilNextDue() { wait = min(wait, due) }
            } catch {
                logger.warn("mail outbox unavailable", ["error": .string(String(describing: error))])
                wait = min(wait, 5)
            }
            mutex.withLock {
                if !woken && !stopping && wait > 0 { _ = mutex.wait(wake, seconds: wait) }
            }
        }
    }

    /// Sends `batch` in order; on stopping, releases the messages not tried.
    private func deliver(_ batch: [OutboxStore.StoredMessage]) throws {
        for (index, message) in batch.enumerated() {
            if isStopping {
                try store.release(ids: batch[index...].map(\.id))
                return
            }
            try deliver(message)
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
        mutex.withLock { counts.sent += 1 }
        logger.debug("mail sent", ["messageId": .string(message.messageId), "kind": .string(message.kind)])
    }

    /// Records a failed attempt (`error`: safe to store and log, no link or content), counts and logs it.
    private func recordFailure(_ message: OutboxStore.StoredMessage, _ error: String, permanent: Bool) throws {
        let outcome = try store.markFailed(
            id: message.id, attempts: message.attempts, error: error, permanent: permanent, retryBase: retryBase)
        mutex.withLock {
            if outcome == .failed { counts.failed += 1 } else { counts.retries += 1 }
        }
        logger.warn(
            outcome == .failed ? "mail delivery failed, given up" : "mail delivery failed, will retry",
            ["messageId": .string(message.messageId), "attempts": .int(message.attempts), "error": .string(error)])
    }
}

extension MailSender {
    /// Marks a delivered message sent. It is out, so should the database be unreachable or
    /// read-only just then (a failover), marking it (an idempotent update) is tried again every
    /// half second until the database takes it, the sender stops or the message's lease runs out:
    /// otherwise the message and the rest of its batch would wait out their lease (minutes) and
    /// the delivered one would go out again.
    private func recordSent(_ message: OutboxStore.StoredMessage) throws {
        let deadline = ContinuousClock.now + .seconds(lease)
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
