import JSON

/// CollectFields (spec §6.3.2) for one execution: `@skip`/`@include` against its
/// variables, fragment spreads against its fragments. Independent of the executable's
/// context type, so the introspection path shares it.
struct FieldCollector {
    let schema: GraphQLSchema
    let fragments: [String: FragmentDefinition]
    let variables: JSONObject
    let coercer: InputCoercer

    /// The fields of `selectionSets` (merged) on `objectType`, grouped by response key
    /// in request order.
    func collect(_ objectType: ObjectType, _ selectionSets: some Collection<SelectionSet>) -> FieldGroups {
        // Room for the selections written directly in the sets (usually all the keys, as
        // fragments are rarer): growing from empty would reallocate several times.
        var capacity = 0
        for selectionSet in selectionSets { capacity += selectionSet.selections.count }
        var groups = FieldGroups(capacity: capacity)
        var visited: [String] = []
        for selectionSet in selectionSets {
            collect(objectType, selectionSet, &groups, &visited)
        }
        return groups
    }

    private func collect(
        _ objectType: ObjectType, _ selectionSet: SelectionSet, _ groups: inout FieldGroups, _ visited: inout [String]
    ) {
        for selection in selectionSet.selections {
            // Consumed: the field's node moves into the groups instead of being copied again.
            switch consume selection {
            case .field(let field):
                guard field.directives.isEmpty || shouldInclude(field.directives) else { continue }
                groups.add(field)
            case .fragmentSpread(let spread):
                guard spread.directives.isEmpty || shouldInclude(spread.directives) else { continue }
                let name = spread.name.value
                // Few fragments per selection: a linear search beats hashing.
                guard !visited.contains(name), let fragment = fragments[name] else { continue }
                visited.append(name)
                guard typeApplies(fragment.typeCondition.value, to: objectType) else { continue }
                collect(objectType, fragment.selectionSet, &groups, &visited)
            case .inlineFragment(let fragment):
                guard fragment.directives.isEmpty || shouldInclude(fragment.directives) else { continue }
                if let condition = fragment.typeCondition, !typeApplies(condition.value, to: objectType) { continue }
                collect(objectType, fragment.selectionSet, &groups, &visited)
            }
        }
    }

    /// DoesFragmentTypeApply (spec §6.3.2).
    func typeApplies(_ typeName: String, to objectType: ObjectType) -> Bool {
        if typeName == objectType.name { return true }
        switch schema.type(typeName) {
        case .interface?: return objectType.interfaces.contains(typeName)
        case .union(let union)?: return union.types.contains(objectType.name)
        default: return false
        }
    }

    /// `@skip` and `@include` (spec §3.13.2, §3.13.3).
    func shouldInclude(_ directives: [Directive]) -> Bool {
        for directive in directives {
            let name = directive.name.value
            guard name == "skip" || name == "include",
                let argument = directive.arguments.first(where: { $0.name.value == "if" }),
                case .bool(let condition)? = coercer.literal(argument.value, type: .nonNull(.named("Boolean")), variables: variables)
            else { continue }
            if name == "skip" && condition { return false }
            if name == "include" && !condition { return false }
        }
        return true
    }
}

/// Collected fields: response keys in request order, each with its field nodes. Most
/// keys have one node, so each key's first node is kept apart from the later ones (a
/// key written several times, merged), and no key has an array of its own.
struct FieldGroups {
    /// The response keys, numbered in request order.
    private(set) var keys = NameTable()
    /// The first node of each key, by key number.
    private(set) var firstNodes: [Field] = []
    /// The nodes of keys after their first, in request order, with their key's number.
    private var laterNodes: [(key: Int, node: Field)] = []

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
        firstNodes.reserveCapacity(capacity)
    }

    /// Adds `field` under its response key (consumed: the groups keep it, not a copy).
    mutating func add(_ field: consuming Field) {
        let (key, inserted) = keys.insert(field.responseKey)
        if inserted {
            firstNodes.append(field)
        } else {
            laterNodes.append((key, field))
        }
    }

    /// The nodes of key number `key` after its first, in request order.
    func laterNodes(of key: Int) -> [Field] {
        if laterNodes.isEmpty { return [] }
        return laterNodes.compactMap { $0.key == key ? $0.node : nil }
    }
}
