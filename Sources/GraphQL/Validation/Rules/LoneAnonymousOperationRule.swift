/// Lone Anonymous Operation (spec §5.2.2.1): an anonymous operation must be the
/// document's only operation.
struct LoneAnonymousOperationRule: ValidationRule {
    static let enters: VisitKinds = [.document, .operation]
    static let leaves: VisitKinds = []
    private var operationCount = 0

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .document(let document):
            operationCount = 0
            for case .operation in document.definitions { operationCount += 1 }
        case .operation(let operation):
            if operation.name == nil, operationCount > 1 {
                context.report("This anonymous operation must be the only defined operation.", at: operation.span.start)
            }
        default: break
        }
        return true
    }
}
