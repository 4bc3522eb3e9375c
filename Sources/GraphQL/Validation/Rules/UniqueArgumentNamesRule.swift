/// Argument Uniqueness (spec §5.4.2): a field or directive is given each argument once.
struct UniqueArgumentNamesRule: ValidationRule {
    static var enters: VisitKinds { [.field, .directive] }
    static var leaves: VisitKinds { [] }

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        let arguments: [Argument]
        switch node {
        case .field(let field): arguments = field.arguments
        case .directive(let directive, _): arguments = directive.arguments
        default: return true
        }
        if arguments.count < 2 { return true }  // nothing to repeat
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
        return true
    }
}
