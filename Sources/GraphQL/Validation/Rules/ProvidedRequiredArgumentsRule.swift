/// Required Arguments (spec §5.4.2.1): every required argument (non-null, no
/// default) of a field or directive is given. Reported when leaving the node, as
/// graphql-js does.
struct ProvidedRequiredArgumentsRule: ValidationRule {
    static let enters: VisitKinds = []
    static let leaves: VisitKinds = [.field, .directive]

    /// The required arguments (name and printed type) of the directive `name`: from
    /// the document's last definition of it, else the schema's; nil when unknown.
    private static func requiredDirectiveArguments(_ name: String, _ context: ValidationContext) -> [(name: String, type: String)]? {
        var defined: DirectiveDefinition? = nil
        for case .directive(let definition) in context.document.definitions where definition.name.value == name {
            defined = definition
        }
        if let defined {
            return defined.arguments.filter {
                if case .nonNull = $0.type, $0.defaultValue == nil { return true }
                return false
            }.map { ($0.name.value, $0.type.description) }
        }
        return context.schema.directive(name).map { $0.arguments.filter(\.isRequired).map { ($0.name, $0.type.description) } }
    }

    mutating func leaveField(_ field: Field, _ context: inout ValidationContext) {
        guard context.typeInfo.fieldHasRequiredArguments, let arguments = context.typeInfo.fieldArguments else { return }
        for argument in arguments where argument.isRequired {
            if field.arguments.contains(where: { $0.name.value == argument.name }) { continue }
            context.report(
                "Field \"\(field.name.value)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.",
                at: field.span.start)
        }
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        switch node {
        case .field(let field):
            leaveField(field, &context)
        case .directive(let directive, _):
            guard let required = Self.requiredDirectiveArguments(directive.name.value, context) else { return }
            let given = Set(directive.arguments.map(\.name.value))
            for argument in required where !given.contains(argument.name) {
                context.report(
                    "Directive \"@\(directive.name.value)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.",
                    at: directive.span.start)
            }
        default: break
        }
    }
}
