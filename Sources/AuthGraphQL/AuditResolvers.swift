import Auth
import Foundation
import GraphQL
import JSON

/// The audit log and webhook deliveries: `auditEvents`, `webhookDeliveries`,
/// `retryWebhookDelivery` (master key), `Viewer.securityEvents`, and `admin.action` entries.
extension AuthGraphQL {
    /// A page of a Relay connection: its edges and whether more follow.
    struct ConnectionPage: Sendable {
        let edges: [Edge]
        let hasNextPage: Bool

        init<Item: Sendable>(_ page: AuditService.Page<Item>) {
            edges = page.items.map { Edge(cursor: $0.cursor, node: $0.item) }
            hasNextPage = page.hasNextPage
        }
    }

    struct Edge: Sendable {
        let cursor: String
        let node: any Sendable
    }

    struct RetryPayload: Sendable {
        let delivery: WebhookDeliveries.Delivery
        let clientMutationId: String?
    }

    static func bindAudit(_ r: inout Resolvers<RequestContext>, auth: AuthService, log: @escaping @Sendable (String) -> Void) {
        r.field("Query.auditEvents") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let filter = try auditFilter(arguments["where"]?.objectValue ?? [:])
                return .value(ConnectionPage(try auth.audit.events(
                    filter, first: arguments["first"]?.intValue, after: arguments["after"]?.stringValue, request: context.request)))
            }
        }
        r.field("Query.webhookDeliveries") { _, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let state = arguments["where"]?.objectValue?["state"]?.objectValue?["equalTo"]?.stringValue.flatMap(deliveryState)
                return .value(ConnectionPage(try auth.audit.webhookDeliveries(
                    state: state, first: arguments["first"]?.intValue, after: arguments["after"]?.stringValue, request: context.request)))
            }
        }
        r.field("Mutation.retryWebhookDelivery") { _, arguments, context, _ in
            let input = arguments["input"]?.objectValue ?? [:]
            return try run(context, log) { () throws(AuthError) -> ResolvedValue in
                let delivery = try auth.audit.retryWebhookDelivery(id: input["id"]?.stringValue ?? "", request: context.request)
                return .value(RetryPayload(delivery: delivery, clientMutationId: input["clientMutationId"]?.stringValue))
            }
        }
        r.field("RetryWebhookDeliveryPayload.delivery", value: \RetryPayload.delivery)
        r.field("RetryWebhookDeliveryPayload.clientMutationId", \RetryPayload.clientMutationId)
        r.field("Viewer.securityEvents", on: SessionGrant.self) { grant, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                .list(try auth.audit.securityEvents(of: grant.user.objectId, first: arguments["first"]?.intValue).map { .value($0) })
            }
        }
        r.field("User.securityEvents", on: User.self) { user, arguments, context, _ in
            try run(context, log) { () throws(AuthError) -> ResolvedValue in
                if !context.request.readsAsMaster, try context.caller(auth.sessions.viewer(token:))?.user.objectId != user.objectId {
                    throw .masterKeyRequired
                }
                return .list(try auth.audit.securityEvents(of: user.objectId, first: arguments["first"]?.intValue).map { .value($0) })
            }
        }

        // PageInfo resolves from JSON (bound with the users search's connection).
        for connection in ["AuditEventConnection", "WebhookDeliveryConnection"] {
            r.field("\(connection).edges", on: ConnectionPage.self, runs: .pure) { page, _, _, _ in .list(page.edges.map { .value($0) }) }
            r.field("\(connection).pageInfo", on: ConnectionPage.self, runs: .pure) { page, _, _, _ in
                .json(.object([
                    "hasNextPage": .bool(page.hasNextPage), "hasPreviousPage": .bool(false),
                    "startCursor": page.edges.first.map { .string($0.cursor) } ?? .null,
                    "endCursor": page.edges.last.map { .string($0.cursor) } ?? .null,
                ]))
            }
        }
        for edge in ["AuditEventEdge", "WebhookDeliveryEdge"] {
            r.field("\(edge).cursor", \Edge.cursor)
            r.field("\(edge).node", value: \Edge.node)
        }

        r.field("AuditEvent.id", \AuditLog.Entry.id)
        r.field("AuditEvent.at", value: \AuditLog.Entry.at)
        r.field("AuditEvent.type", \AuditLog.Entry.type)
        r.field("AuditEvent.actor", \AuditLog.Entry.actor)
        r.field("AuditEvent.userId", \AuditLog.Entry.userId)
        r.field("AuditEvent.sessionId", \AuditLog.Entry.sessionId)
        r.field("AuditEvent.ip", \AuditLog.Entry.ip)
        r.field("AuditEvent.userAgent", \AuditLog.Entry.userAgent)
        r.field("AuditEvent.data", on: AuditLog.Entry.self, runs: .pure) { entry, _, _, _ in
            if case .object = entry.data { return .json(entry.data) }
            return .null
        }
        r.field("SecurityEvent.at", value: \AuditLog.Entry.at)
        r.field("SecurityEvent.type", \AuditLog.Entry.type)
        r.field("SecurityEvent.ip", \AuditLog.Entry.ip)
        r.field("SecurityEvent.userAgent", \AuditLog.Entry.userAgent)

        r.field("WebhookDelivery.id", on: WebhookDeliveries.Delivery.self, runs: .pure) { delivery, _, _, _ in .string(String(delivery.id)) }
        r.field("WebhookDelivery.eventId", \WebhookDeliveries.Delivery.eventId)
        r.field("WebhookDelivery.eventType", \WebhookDeliveries.Delivery.eventType)
        r.field("WebhookDelivery.url", \WebhookDeliveries.Delivery.url)
        r.field("WebhookDelivery.state", on: WebhookDeliveries.Delivery.self, runs: .pure) { delivery, _, _, _ in
            .string(graphQLState(delivery.state))
        }
        r.field("WebhookDelivery.attempts", \WebhookDeliveries.Delivery.attempts)
        r.field("WebhookDelivery.lastError", \WebhookDeliveries.Delivery.lastError)
        r.field("WebhookDelivery.nextAttemptAt", value: \WebhookDeliveries.Delivery.nextAttemptAt)
        r.field("WebhookDelivery.createdAt", value: \WebhookDeliveries.Delivery.createdAt)
    }

    /// `WebhookDeliveryState`'s value of `state`.
    static func graphQLState(_ state: WebhookDeliveries.State) -> String {
        switch state {
        case .pending: "PENDING"
        case .delivered: "DELIVERED"
        case .failed: "FAILED"
        }
    }

    static func deliveryState(_ name: String) -> WebhookDeliveries.State? {
        WebhookDeliveries.State.allCases.first { graphQLState($0) == name }
    }

    /// `AuditEventWhereInput` as the log's filter (`userId` an objectId or a User's global id).
    static func auditFilter(_ input: JSONObject) throws(AuthError) -> AuditLog.Filter {
        var filter = AuditLog.Filter()
        filter.userId = input["userId"]?.stringValue.map { GlobalID.decode($0, type: "User") ?? $0 }
        if case .array(let types)? = input["type"]?.objectValue?["in"] { filter.types = types.compactMap(\.stringValue) }
        let at = input["at"]?.objectValue ?? [:]
        filter.after = at["greaterThan"]?.stringValue.flatMap(ISO8601.parse)
        filter.before = at["lessThan"]?.stringValue.flatMap(ISO8601.parse)
        return filter
    }

    /// Wraps every blocking mutation so that one made with a master key records `admin.action`
    /// (its name, the user its input's `id` names, its outcome) after it ran.
    static func recordAdminActions(_ r: inout Resolvers<RequestContext>, auth: AuthService) {
        r.wrapBlockingFields(of: "Mutation") { name, resolver in
            { source, arguments, context, info in
                guard context.request.isMaster else { return try resolver(source, arguments, context, info) }
                let target = arguments["input"]?.objectValue?["id"]?.stringValue.map { GlobalID.decode($0, type: "User") ?? $0 }
                let record = { (code: Int?) in
                    AuditOrigin.bind(context.auditOrigin) {
                        auth.audit.recordAdminAction(operation: name, targetUserId: target, errorCode: code)
                    }
                }
                do {
                    let value = try resolver(source, arguments, context, info)
                    record(nil)
                    return value
                } catch {
                    // Parse's code of the refusal; 1 (internal) for anything else.
                    if case .int(let code)? = (error as? GraphQLError)?.extensions?["code"] { record(code) } else { record(1) }
                    throw error
                }
            }
        }
    }
}
