/// Input Object Field Uniqueness (spec §5.6.3): an input object literal gives each field once.
struct UniqueInputFieldNamesRule: ValidationRule {
    static let enters: VisitKinds = [.value, .objectField]
    static let leaves: VisitKinds = .value
    private var stack: [[String: Name]] = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
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

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        if case .value(let value) = node, case .object = value.kind { stack.removeLast() }
    }
}
