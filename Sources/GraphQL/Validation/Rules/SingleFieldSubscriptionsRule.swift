/// Single Root Field (spec §5.2.3.1): a subscription selects exactly one root field,
/// and not an introspection field. Fields are collected as CollectFields does,
/// through fragments, with no variable values.
struct SingleFieldSubscriptionsRule: ValidationRule {
    static let enters: VisitKinds = .operation
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .operation(let operation) = node, operation.operation == .subscription,
            let root = context.schema.subscriptionType
        else { return true }
        let subject = operation.name.map { "Subscription \"\($0.value)\"" } ?? "Anonymous Subscription"
        let groups = collectFields(
            schema: context.schema, fragments: context.fragments, type: root, selectionSet: operation.selectionSet)
        if groups.count > 1 {
            let extra = groups.dropFirst().flatMap { $0.fields.map(\.span.start) }
            context.report("\(subject) must select only one top level field.", at: extra)
        }
        for group in groups where group.fields[0].name.value.hasPrefix("__") {
            context.report(
                "\(subject) must not select an introspection top level field.", at: group.fields.map(\.span.start))
        }
        return true
    }
}
