/// Argument Uniqueness (spec §5.4.2): a field or directive is given each argument once.
struct UniqueArgumentNamesRule: ValidationRule {
    static let enters: VisitKinds = [.field, .directive]
    static let leaves: VisitKinds = []

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        if field.arguments.count >= 2 { Self.check(field.arguments, &context) }
        return true
    }

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        if case .directive(let directive, _) = node, directive.arguments.count >= 2 { Self.check(directive.arguments, &context) }
        return true
    }

    private static func check(_ arguments: [Argument], _ context: inout ValidationContext) {
        var order: [String] = []
        var groups: [String: [Argument]] = [:]
        for argument in arguments {
            if groups[argument.name.value] == nil { order.append(argument.name.value) }
            groups[argument.name.value, default: []].append(argument)
        }
        for name in order where groups[name]!.count > 1 {
            context.report(
                "There can be only one argument named \"\(name)\".", at: groups[name]!.map(\.name.span.start))
        }
    }
}
