/// Argument Names (spec §5.4.1): every argument is defined by its field or directive.
struct KnownArgumentNamesRule: ValidationRule {
    static let enters: VisitKinds = [.argument, .directive]
    static let leaves: VisitKinds = []
    /// Argument names by directive name, built at the first directive met.
    private var directiveArguments: [String: [String]]? = nil

    private static func directiveArguments(_ context: ValidationContext) -> [String: [String]] {
        var directiveArguments: [String: [String]] = [:]
        for directive in context.schema.directives { directiveArguments[directive.name] = directive.arguments.map(\.name) }
        for case .directive(let definition) in context.document.definitions {
            directiveArguments[definition.name.value] = definition.arguments.map(\.name.value)
        }
        return directiveArguments
    }

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .argument(let argument):
            if context.typeInfo.argument == nil, let fieldName = context.typeInfo.fieldName,
                let fieldArguments = context.typeInfo.fieldArguments, let parent = context.typeInfo.parentType
            {
                let name = argument.name.value
                context.report(
                    "Unknown argument \"\(name)\" on field \"\(parent.name).\(fieldName)\"."
                        + didYouMean(Suggestions.list(name, fieldArguments.map(\.name))),
                    at: argument.span.start)
            }
        case .directive(let directive, _):
            if directiveArguments == nil { directiveArguments = Self.directiveArguments(context) }
            guard let known = directiveArguments?[directive.name.value] else { break }
            for argument in directive.arguments where !known.contains(argument.name.value) {
                let name = argument.name.value
                context.report(
                    "Unknown argument \"\(name)\" on directive \"@\(directive.name.value)\"."
                        + didYouMean(Suggestions.list(name, known)),
                    at: argument.span.start)
            }
            // Directive arguments are fully checked here (graphql-js returns false too).
            return false
        default: break
        }
        return true
    }
}
