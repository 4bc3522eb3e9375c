/// Directives Are Defined and Directives Are in Valid Locations (spec §5.7.1,
/// §5.7.2): every directive is defined (by the schema or the document) and allowed
/// where it is used.
struct KnownDirectivesRule: ValidationRule {
    static let enters: VisitKinds = .directive
    static let leaves: VisitKinds = []
    /// Allowed locations by directive name, built at the first directive met.
    private var locations: [String: [String]]? = nil

    private static func locations(_ context: ValidationContext) -> [String: [String]] {
        var locations: [String: [String]] = [:]
        for directive in context.schema.directives { locations[directive.name] = directive.locations.map(\.rawValue) }
        for case .directive(let definition) in context.document.definitions {
            locations[definition.name.value] = definition.locations.map(\.value)
        }
        return locations
    }

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .directive(let directive, let location) = node else { return true }
        let name = directive.name.value
        if locations == nil { locations = Self.locations(context) }
        guard let allowed = locations?[name] else {
            context.report("Unknown directive \"@\(name)\".", at: directive.span.start)
            return true
        }
        if !allowed.contains(location.rawValue) {
            context.report("Directive \"@\(name)\" may not be used on \(location.rawValue).", at: directive.span.start)
        }
        return true
    }
}
