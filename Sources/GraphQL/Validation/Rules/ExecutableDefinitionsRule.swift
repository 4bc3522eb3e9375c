/// Executable Definitions (spec §5.1.1): a document for execution contains only
/// operations and fragments.
struct ExecutableDefinitionsRule: ValidationRule {
    static let enters: VisitKinds = .document
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .document(let document) = node else { return true }
        for definition in document.definitions where !definition.isExecutable {
            let name: String
            switch definition {
            case .schema, .schemaExtension: name = "schema"
            case .type(let type), .typeExtension(let type): name = "\"\(type.name.value)\""
            case .directive(let directive): name = "\"\(directive.name.value)\""
            case .operation, .fragment: continue
            }
            context.report("The \(name) definition is not executable.", at: definition.span.start)
        }
        return false
    }
}
