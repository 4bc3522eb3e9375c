/// Input Object Field Uniqueness (spec §5.6.3): an input object literal gives each field once.
final class UniqueInputFieldNamesRule: ValidationRule {
    static let enters: VisitKinds = [.value, .objectField]
    static let leaves: VisitKinds = .value
    private let context: ValidationContext
    private var stack: [[String: Name]] = []
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        switch node {
        case .value(let value):
            if case .object = value.kind { stack.append([:]) }
        case .objectField(let field):
            let name = field.name
            if let first = stack[stack.count - 1][name.value] {
                context.report(
                    "There can be only one input field named \"\(name.value)\".", at: [first.span.start, name.span.start])
            } else {
                stack[stack.count - 1][name.value] = name
            }
        default: break
        }
        return true
    }

    func leave(_ node: VisitNode) {
        if case .value(let value) = node, case .object = value.kind { stack.removeLast() }
    }
}
