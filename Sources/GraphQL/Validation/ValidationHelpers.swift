/// " Did you mean <sub> "a", "b", or "c"?" as graphql-js's `didYouMean` writes it
/// (at most five suggestions), or "" when there are none.
func didYouMean(_ suggestions: [String], sub subMessage: String? = nil) -> String {
    let quoted = suggestions.prefix(5).map { "\"\($0)\"" }
    let lead = " Did you mean " + (subMessage.map { $0 + " " } ?? "")
    switch quoted.count {
    case 0: return ""
    case 1: return lead + quoted[0] + "?"
    case 2: return lead + quoted[0] + " or " + quoted[1] + "?"
    default: return lead + quoted.dropLast().joined(separator: ", ") + ", or " + quoted.last! + "?"
    }
}

extension GraphQLSchema {
    /// Whether two composite types can have a runtime object in common (graphql-js `doTypesOverlap`).
    func typesOverlap(_ a: NamedType, _ b: NamedType) -> Bool {
        if a.name == b.name { return true }
        if a.isAbstract {
            if b.isAbstract { return possibleTypes(a.name).contains { isSubType(b.name, $0.name) } }
            return isSubType(a.name, b.name)
        }
        if b.isAbstract { return isSubType(b.name, a.name) }
        return false
    }

    /// Whether a value of type `sub` can be used where `sup` is expected (graphql-js `isTypeSubTypeOf`).
    func isTypeSubType(_ sub: TypeRef, of sup: TypeRef) -> Bool {
        if sub == sup { return true }
        if case .nonNull(let superInner) = sup {
            if case .nonNull(let subInner) = sub { return isTypeSubType(subInner, of: superInner) }
            return false
        }
        if case .nonNull(let subInner) = sub { return isTypeSubType(subInner, of: sup) }
        if case .list(let superInner) = sup {
            if case .list(let subInner) = sub { return isTypeSubType(subInner, of: superInner) }
            return false
        }
        if case .list = sub { return false }
        guard case .named(let superName) = sup, case .named(let subName) = sub,
            let superType = type(superName), superType.isAbstract,
            let subType = type(subName), case .object = subType
        else { return false }
        return isSubType(superName, subName)
    }

    /// Whether a fragment with type condition `condition` applies to objects of `type`.
    func fragmentConditionMatches(_ condition: Name?, _ type: ObjectType) -> Bool {
        guard let condition else { return true }
        if condition.value == type.name { return true }
        guard let conditional = self.type(condition.value), conditional.isAbstract else { return false }
        return isSubType(conditional.name, type.name)
    }
}

/// The fields a selection set selects on an object type, grouped by response key in
/// order (spec CollectFields), with no variables: a `@skip`/`@include` whose `if` is a
/// variable keeps the selection.
func collectFields(
    schema: GraphQLSchema, fragments: FragmentTable, type: ObjectType, selectionSet: SelectionSet
) -> [(key: String, fields: [Field])] {
    var keys: [String] = []
    var groups: [String: [Field]] = [:]
    var visited: Set<String> = []
    func isIncluded(_ directives: [Directive]) -> Bool {
        for directive in directives where directive.name.value == "skip" || directive.name.value == "include" {
            guard let argument = directive.arguments.first(where: { $0.name.value == "if" }),
                case .boolean(let value) = argument.value.kind
            else { continue }
            if directive.name.value == "skip" ? value : !value { return false }
        }
        return true
    }
    func collect(_ set: SelectionSet) {
        for selection in set.selections where isIncluded(selection.directives) {
            switch selection {
            case .field(let field):
                let key = field.responseKey
                if groups[key] == nil { keys.append(key) }
                groups[key, default: []].append(field)
            case .inlineFragment(let fragment):
                if schema.fragmentConditionMatches(fragment.typeCondition, type) { collect(fragment.selectionSet) }
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard !visited.contains(name) else { continue }
                visited.insert(name)
                guard let fragment = fragments[name],
                    schema.fragmentConditionMatches(fragment.typeCondition, type)
                else { continue }
                collect(fragment.selectionSet)
            }
        }
    }
    collect(selectionSet)
    return keys.map { ($0, groups[$0]!) }
}
