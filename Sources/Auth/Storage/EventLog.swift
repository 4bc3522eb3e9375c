import Foundation
import Postgres
import Sodium
import Threading

/// The one place where "something happened" is recorded: every change of the event catalogue
/// (``AuthEvent``) calls ``record(_:in:)`` inside the transaction that makes the change, so an
/// event is stored exactly when its change commits.
///
/// Each event is stored once per webhook endpoint whose filter takes its type, as a row of the
/// webhook outbox (`webhook_outbox`, migration 14) with the delivery's body already written; an
/// endpoint that does not take the type gets nothing, and with no endpoint configured nothing is
/// written at all. The row's `event_id` is the delivery's `webhook-id`, the same for every
/// endpoint and every retry.
///
/// A committed row wakes this process's webhook sender directly (``Wakeup``, naming the endpoints
/// it wrote rows for), after the commit: a `NOTIFY` in the change's transaction would serialize
/// every commit that carries an event (PostgreSQL holds one lock per database from a notifying
/// transaction's commit until its WAL flush). Only a process without a sender (a command of the
/// `gatehouse` tool) notifies the instances' senders, on channel `gatehouse_webhooks`.
///
/// With the audit log on (``auditing``), every event is also appended to it (``AuditLog``), in
/// the same transaction, with the same id, as the ``AuditOrigin`` in force: its actor, address,
/// user agent and session.
public struct EventLog: Sendable {
    /// Wakes the process's webhook sender once rows it can deliver are committed.
    public final class Wakeup: Sendable {
        /// What a commit calls, given the endpoints it wrote rows for.
        public typealias Action = @Sendable (_ endpoints: [String]) -> Void

        /// The action in a class: a closure kept directly as a `Lock`'s state would be wrapped in
        /// two more reabstraction thunks by every read (Swift passes it `inout` through the
        /// generic), so each commit would call through a chain as long as the commits before it.
        private final class Box: Sendable {
            let action: Action
            init(_ action: @escaping Action) { self.action = action }
        }

        private let box = Lock<Box?>(nil)

        public init() {}

        /// What a commit of events calls from now on (the sender's wake-up); nil: none, the
        /// commit notifies instead.
        public func set(_ action: Action?) {
            let box = action.map(Box.init)
            self.box.withLock { $0 = box }
        }

        var current: Action? { box.withLock { $0 }?.action }
    }

    /// A webhook endpoint as the log sees it: where its deliveries go (the key of its rows) and
    /// the event types it takes.
    public struct Subscriber: Sendable, Equatable {
        /// The endpoint's URL.
        public var endpoint: String
        /// The types it takes; nil: every type (`"*"`).
        public var kinds: Set<AuthEvent.Kind>?

        public init(endpoint: String, kinds: Set<AuthEvent.Kind>?) {
            self.endpoint = endpoint
            self.kinds = kinds
        }

        func takes(_ kind: AuthEvent.Kind) -> Bool { kinds?.contains(kind) ?? true }
    }

    public let subscribers: [Subscriber]
    /// Whether every event is appended to the audit log (`GATEHOUSE_AUDIT_LOG`).
    public let auditing: Bool
    /// This process's sender, woken after each commit of events.
    public let wakeup: Wakeup

    /// A log for these endpoints (none, and no audit log: a log that records nothing).
    public init(subscribers: [Subscriber] = [], auditing: Bool = false, wakeup: Wakeup = Wakeup()) {
        self.subscribers = subscribers
        self.auditing = auditing
        self.wakeup = wakeup
    }

    /// Whether an event of `kind` would be stored: callers whose change is a single statement
    /// outside a transaction open one only then.
    public func records(_ kind: AuthEvent.Kind) -> Bool {
        auditing || (!kind.isAuditOnly && subscribers.contains { $0.takes(kind) })
    }

    /// Stores `events` in `tx`, the transaction of their change, in order (a user's events are
    /// delivered to each endpoint in the order of their rows).
    ///
    /// A user's rows must also commit in the order of their ids: a sender sees a row once it is
    /// committed, and a row committed before an earlier one of the same user (two changes of the
    /// user in parallel that lock nothing in common) would be delivered first. So the statement
    /// first takes a transaction-level advisory lock per user of the events (``orderLockKey``; in
    /// one order, so two recordings of several users cannot deadlock), held until `tx` ends: a
    /// second change of the user waits there, takes its ids after the first commits, and commits
    /// after it. Changes record their events at their end, so the lock is held for little more than
    /// the commit.
    func record(_ events: [AuthEvent], in tx: Transaction) throws {
        guard auditing || !subscribers.isEmpty else { return }
        var auditIds: [String] = []
        var eventIds: [String] = [], endpoints: [String] = [], userIds: [String] = [], kinds: [String] = [], bodies: [String] = []
        for event in events {
            let eventId = "msg_" + SecureRandom.hex(count: 16)
            auditIds.append(eventId)
            // Audit-only events have no user only when no account matched; webhooks never take them.
            guard !event.kind.isAuditOnly, let userId = event.userId else { continue }
            let targets = subscribers.filter { $0.takes(event.kind) }
            guard !targets.isEmpty else { continue }
            let body = event.body
            for target in targets {
                eventIds.append(eventId)
                endpoints.append(target.endpoint)
                userIds.append(userId)
                kinds.append(event.kind.rawValue)
                bodies.append(body)
            }
        }
        if auditing { AuditLog.append(events, ids: auditIds, origin: AuditOrigin.current, in: tx) }
        guard !eventIds.isEmpty else { return }
        // The uncorrelated subquery is a one-time filter: the locks are taken before the first
        // row, so before any id is drawn.
        try tx.execute("""
            INSERT INTO webhook_outbox (event_id, endpoint, user_id, type, body, created_at, next_attempt_at)
            SELECT e.event_id, e.endpoint, e.user_id, e.type, e.body, now(), now()
            FROM unnest(\(PostgresArray(eventIds)), \(PostgresArray(endpoints)), \(PostgresArray(userIds)),
                        \(PostgresArray(kinds)), \(PostgresArray(bodies))) WITH ORDINALITY AS e(event_id, endpoint, user_id, type, body, n)
            WHERE (SELECT count(pg_advisory_xact_lock(k.key)) FROM (
                       SELECT DISTINCT \(sql: Self.orderLockKey) AS key FROM unnest(\(PostgresArray(userIds))) AS u(user_id)
                       ORDER BY 1) k) >= 0
            ORDER BY e.n
            """)
        if let wake = wakeup.current {
            let woken = Array(Set(endpoints))
            tx.afterCommit { wake(woken) }
        } else {
            try tx.execute("SELECT gatehouse_notify(\(AuthMigrations.Channel.webhooks), '')")
        }
    }

    /// The advisory lock key of a user's event order, of a column `user_id`: a 64-bit hash of a
    /// text that no other advisory lock of Gatehouse's hashes.
    static let orderLockKey: StaticString = "hashtextextended('gatehouse.webhook_order:' || user_id, 0)"

    /// ``record(_:in:)`` of one or more events.
    func record(_ events: AuthEvent..., in tx: Transaction) throws {
        try record(events, in: tx)
    }
}
