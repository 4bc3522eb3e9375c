/// Field Selection Merging (spec §5.3.2): fields with the same response key in a
/// selection set (directly, in inline fragments or through fragment spreads) can be
/// merged: same field and arguments unless their parents are distinct object types,
/// and compatible return types, recursively in their sub-selections.
///
/// Follows graphql-js's algorithm: field maps are cached per selection set and
/// compared fragment pairs are memoised, so a document of many fragments spreading
/// each other is not explored exponentially. The caches live in a `ConflictFinder`
/// created at the first selection set that needs it.
struct OverlappingFieldsCanBeMergedRule: ValidationRule {
    static let enters: VisitKinds = .selectionSet
    private var finder: ConflictFinder? = nil

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .selectionSet(let selectionSet) = node else { return true }
        if Self.hasDistinctFieldsOnly(selectionSet) || Self.isLoneLeafSpread(selectionSet, context) { return true }
        if finder == nil { finder = ConflictFinder(schema: context.schema, fragments: context.fragments) }
        for conflict in finder!.conflictsWithin(context.typeInfo.parentType, selectionSet) {
            context.report(
                "Fields \"\(conflict.responseName)\" conflict because \(conflict.reason.message). Use different aliases on the fields to fetch both if this was intentional.",
                at: (conflict.fields1 + conflict.fields2).map(\.span.start))
        }
        return true
    }

    /// Whether the set is a single spread of a fragment that spreads no other fragment
    /// outside its fields (or of an unknown fragment), as `{ ...TypeRef }`: with no
    /// field of its own to compare with the fragment's, and no second fragment, the
    /// set has no conflict and the comparison would record no fragment pair; the
    /// fragment's own fields are checked when the walk reaches its definition.
    private static func isLoneLeafSpread(_ selectionSet: SelectionSet, _ context: ValidationContext) -> Bool {
        guard selectionSet.selections.count == 1, case .fragmentSpread(let spread) = selectionSet.selections[0] else {
            return false
        }
        guard let fragment = context.fragments.number(of: spread.name.value) else { return true }
        return !spreadsAtTopLevel(context.fragments.selectionSet(fragment))
    }

    /// Whether a set spreads a fragment directly or through inline fragments (the
    /// fragment names `ConflictFinder.collect` would record for it).
    private static func spreadsAtTopLevel(_ selectionSet: SelectionSet) -> Bool {
        for selection in selectionSet.selections {
            switch selection {
            case .field: continue
            case .fragmentSpread: return true
            case .inlineFragment(let fragment): if spreadsAtTopLevel(fragment.selectionSet) { return true }
            }
        }
        return false
    }

    /// Whether the set is only fields with distinct response keys (up to 16 of them):
    /// then no two fields can conflict within it, and its sub-selections are checked
    /// when the walk reaches them.
    private static func hasDistinctFieldsOnly(_ selectionSet: SelectionSet) -> Bool {
        let selections = selectionSet.selections
        guard selections.count <= 16 else { return false }
        // A 64-bit filter on each key's length (a count a string knows without reading its
        // bytes): a key whose bit is not yet set is new; only the others are compared with
        // the earlier keys. No set is built, and by index no selection is copied.
        var filter: UInt64 = 0
        for index in selections.indices {
            guard case .field(let field) = selections[index] else { return false }
            let key = field.alias?.value ?? field.name.value
            let bit = UInt64(1) << (UInt64(key.utf8.count) & 63)
            if filter & bit != 0 {
                for earlier in 0..<index {
                    if case .field(let other) = selections[earlier], (other.alias?.value ?? other.name.value) == key {
                        return false
                    }
                }
            }
            filter |= bit
        }
        return true
    }
}

/// The state of `OverlappingFieldsCanBeMergedRule` across one validation.
private final class ConflictFinder {
    private let schema: GraphQLSchema
    private let fragments: FragmentTable
    private var cache: [Int: FieldsAndFragments] = [:]
    private var comparedFragmentPairs = PairSet()
    private var uncachedCount = 0
    /// The field-map/fragment comparisons in progress on the current call path (map
    /// id, fragment, mutually exclusive). Re-entering one is an unbounded recursion:
    /// with a fragment that spreads itself inside a field next to a field of the same
    /// response name, comparing the fields with the fragment led back to the same
    /// comparison through the sub-selections, until the stack overflowed (found by
    /// fuzzing). One re-entry is allowed, since graphql-js makes it (and reports the
    /// duplicate conflicts it finds, which the graphql-js-derived tests expect); a
    /// second nested re-entry of the same comparison is skipped.
    private var inProgress: [FieldsFragmentKey: Int] = [:]
    private struct FieldsFragmentKey: Hashable {
        let map: Int
        let fragment: String
        let mutuallyExclusive: Bool
    }

    init(schema: GraphQLSchema, fragments: FragmentTable) {
        self.schema = schema
        self.fragments = fragments
    }

    // MARK: Data

    private struct FieldEntry {
        let parentType: NamedType?
        let node: Field
        let def: FieldDef?
    }

    private final class FieldsAndFragments {
        let id: Int
        var keys: [String] = []
        var fields: [String: [FieldEntry]] = [:]
        var fragmentNames: [String] = []
        init(id: Int) { self.id = id }
    }

    indirect enum Reason {
        case message(String)
        case subfields([(String, Reason)])

        var message: String {
            switch self {
            case .message(let text): text
            case .subfields(let reasons):
                reasons.map { "subfields \"\($0.0)\" conflict because \($0.1.message)" }.joined(separator: " and ")
            }
        }
    }

    struct Conflict {
        let responseName: String
        let reason: Reason
        let fields1: [Field]
        let fields2: [Field]
    }

    /// Unordered pairs of fragment names already compared, with whether the comparison
    /// was under mutually exclusive parents.
    private struct PairSet {
        private var data: [String: [String: Bool]] = [:]

        func has(_ a: String, _ b: String, _ mutuallyExclusive: Bool) -> Bool {
            let (first, second) = a < b ? (a, b) : (b, a)
            guard let result = data[first]?[second] else { return false }
            // A pair compared as not mutually exclusive covers the exclusive case too.
            return mutuallyExclusive ? true : result == mutuallyExclusive
        }

        mutating func add(_ a: String, _ b: String, _ mutuallyExclusive: Bool) {
            let (first, second) = a < b ? (a, b) : (b, a)
            data[first, default: [:]][second] = mutuallyExclusive
        }
    }

    // MARK: Finding conflicts

    func conflictsWithin(_ parentType: NamedType?, _ selectionSet: SelectionSet) -> [Conflict] {
        var conflicts: [Conflict] = []
        let map = fieldsAndFragments(parentType, selectionSet)
        for key in map.keys {
            let fields = map.fields[key]!
            guard fields.count > 1 else { continue }
            for i in fields.indices {
                for j in (i + 1)..<fields.count {
                    if let conflict = findConflict(false, key, fields[i], fields[j]) { conflicts.append(conflict) }
                }
            }
        }
        let names = map.fragmentNames
        for (i, name) in names.enumerated() {
            collectBetweenFieldsAndFragment(&conflicts, false, map, name)
            for other in names[(i + 1)...] {
                collectBetweenFragments(&conflicts, false, name, other)
            }
        }
        return conflicts
    }

    private func collectBetweenFieldsAndFragment(
        _ conflicts: inout [Conflict], _ mutuallyExclusive: Bool, _ map: FieldsAndFragments, _ fragmentName: String
    ) {
        guard let fragment = fragments[fragmentName] else { return }
        let map2 = referencedFieldsAndFragments(fragment)
        if map.id == map2.id { return }
        let key = FieldsFragmentKey(map: map.id, fragment: fragmentName, mutuallyExclusive: mutuallyExclusive)
        let depth = inProgress[key, default: 0]
        guard depth < 2 else { return }
        inProgress[key] = depth + 1
        defer { inProgress[key] = depth == 0 ? nil : depth }
        collectBetween(&conflicts, mutuallyExclusive, map, map2)
        for referenced in map2.fragmentNames {
            if comparedFragmentPairs.has(referenced, fragmentName, mutuallyExclusive) { continue }
            comparedFragmentPairs.add(referenced, fragmentName, mutuallyExclusive)
            collectBetweenFieldsAndFragment(&conflicts, mutuallyExclusive, map, referenced)
        }
    }

    private func collectBetweenFragments(
        _ conflicts: inout [Conflict], _ mutuallyExclusive: Bool, _ name1: String, _ name2: String
    ) {
        if name1 == name2 { return }
        if comparedFragmentPairs.has(name1, name2, mutuallyExclusive) { return }
        comparedFragmentPairs.add(name1, name2, mutuallyExclusive)
        guard let fragment1 = fragments[name1], let fragment2 = fragments[name2] else { return }
        let map1 = referencedFieldsAndFragments(fragment1)
        let map2 = referencedFieldsAndFragments(fragment2)
        collectBetween(&conflicts, mutuallyExclusive, map1, map2)
        for referenced in map2.fragmentNames { collectBetweenFragments(&conflicts, mutuallyExclusive, name1, referenced) }
        for referenced in map1.fragmentNames { collectBetweenFragments(&conflicts, mutuallyExclusive, referenced, name2) }
    }

    private func conflictsBetweenSubSelections(
        _ mutuallyExclusive: Bool, _ parent1: NamedType?, _ set1: SelectionSet, _ parent2: NamedType?, _ set2: SelectionSet
    ) -> [Conflict] {
        var conflicts: [Conflict] = []
        let map1 = fieldsAndFragments(parent1, set1)
        let map2 = fieldsAndFragments(parent2, set2)
        collectBetween(&conflicts, mutuallyExclusive, map1, map2)
        for name in map2.fragmentNames { collectBetweenFieldsAndFragment(&conflicts, mutuallyExclusive, map1, name) }
        for name in map1.fragmentNames { collectBetweenFieldsAndFragment(&conflicts, mutuallyExclusive, map2, name) }
        for name1 in map1.fragmentNames {
            for name2 in map2.fragmentNames { collectBetweenFragments(&conflicts, mutuallyExclusive, name1, name2) }
        }
        return conflicts
    }

    private func collectBetween(
        _ conflicts: inout [Conflict], _ mutuallyExclusive: Bool, _ map1: FieldsAndFragments, _ map2: FieldsAndFragments
    ) {
        for key in map1.keys {
            guard let fields2 = map2.fields[key] else { continue }
            for field1 in map1.fields[key]! {
                for field2 in fields2 {
                    if let conflict = findConflict(mutuallyExclusive, key, field1, field2) { conflicts.append(conflict) }
                }
            }
        }
    }

    private func findConflict(
        _ parentsMutuallyExclusive: Bool, _ responseName: String, _ field1: FieldEntry, _ field2: FieldEntry
    ) -> Conflict? {
        var mutuallyExclusive = parentsMutuallyExclusive
        if !mutuallyExclusive, let parent1 = field1.parentType, let parent2 = field2.parentType,
            parent1.name != parent2.name, case .object = parent1, case .object = parent2
        {
            mutuallyExclusive = true
        }
        let node1 = field1.node, node2 = field2.node
        if !mutuallyExclusive {
            if node1.name.value != node2.name.value {
                return Conflict(
                    responseName: responseName,
                    reason: .message("\"\(node1.name.value)\" and \"\(node2.name.value)\" are different fields"),
                    fields1: [node1], fields2: [node2])
            }
            if !sameArguments(node1.arguments, node2.arguments) {
                return Conflict(
                    responseName: responseName, reason: .message("they have differing arguments"),
                    fields1: [node1], fields2: [node2])
            }
        }
        let type1 = field1.def?.type, type2 = field2.def?.type
        if let type1, let type2, typesConflict(type1, type2) {
            return Conflict(
                responseName: responseName,
                reason: .message("they return conflicting types \"\(type1)\" and \"\(type2)\""),
                fields1: [node1], fields2: [node2])
        }
        guard let set1 = node1.selectionSet, let set2 = node2.selectionSet else { return nil }
        let sub = conflictsBetweenSubSelections(
            mutuallyExclusive, type1.flatMap { schema.type($0.namedType) }, set1,
            type2.flatMap { schema.type($0.namedType) }, set2)
        guard !sub.isEmpty else { return nil }
        return Conflict(
            responseName: responseName, reason: .subfields(sub.map { ($0.responseName, $0.reason) }),
            fields1: [node1] + sub.flatMap(\.fields1), fields2: [node2] + sub.flatMap(\.fields2))
    }

    private func sameArguments(_ arguments1: [Argument], _ arguments2: [Argument]) -> Bool {
        guard arguments1.count == arguments2.count else { return false }
        for argument1 in arguments1 {
            guard let argument2 = arguments2.first(where: { $0.name.value == argument1.name.value }),
                canonical(argument1.value) == canonical(argument2.value)
            else { return false }
        }
        return true
    }

    /// A value printed with object fields sorted by name (graphql-js `sortValueNode`).
    private func canonical(_ value: Value) -> String {
        switch value.kind {
        case .list(let items): "[" + items.map(canonical).joined(separator: ", ") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.name.value < $1.name.value }.map { $0.name.value + ": " + canonical($0.value) }
                .joined(separator: ", ") + "}"
        default: print(value)
        }
    }

    /// Whether two types cannot both describe one value: list and non-null wrappers
    /// must match, and leaf types must be the same (composite types are compared
    /// through their sub-fields).
    private func typesConflict(_ type1: TypeRef, _ type2: TypeRef) -> Bool {
        switch (type1, type2) {
        case (.list(let inner1), .list(let inner2)): return typesConflict(inner1, inner2)
        case (.list, _), (_, .list): return true
        case (.nonNull(let inner1), .nonNull(let inner2)): return typesConflict(inner1, inner2)
        case (.nonNull, _), (_, .nonNull): return true
        case (.named(let name1), .named(let name2)):
            let leaf1 = schema.type(name1)?.isLeaf ?? false
            let leaf2 = schema.type(name2)?.isLeaf ?? false
            return (leaf1 || leaf2) && name1 != name2
        }
    }

    // MARK: Collecting fields

    private func fieldsAndFragments(_ parentType: NamedType?, _ selectionSet: SelectionSet) -> FieldsAndFragments {
        // Parsed selection sets are told apart by where they start; nodes built in code
        // (empty synthetic spans) are not cached, which costs time but not correctness.
        let isParsed = selectionSet.span.end > selectionSet.span.start
        let key = selectionSet.span.start
        if isParsed, let cached = cache[key] { return cached }
        uncachedCount += 1
        let map = FieldsAndFragments(id: isParsed ? key : -uncachedCount)
        var seenFragments: Set<String> = []
        collect(parentType, selectionSet, map, &seenFragments)
        if isParsed { cache[key] = map }
        return map
    }

    private func referencedFieldsAndFragments(_ fragment: FragmentDefinition) -> FieldsAndFragments {
        return fieldsAndFragments(schema.type(fragment.typeCondition.value), fragment.selectionSet)
    }

    private func collect(
        _ parentType: NamedType?, _ selectionSet: SelectionSet, _ map: FieldsAndFragments, _ seen: inout Set<String>
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                // Meta-fields have no definition here, as in graphql-js.
                let key = field.responseKey
                if map.fields[key] == nil { map.keys.append(key) }
                map.fields[key, default: []].append(
                    FieldEntry(parentType: parentType, node: field, def: parentType?.field(field.name.value)))
            case .fragmentSpread(let spread):
                if seen.insert(spread.name.value).inserted { map.fragmentNames.append(spread.name.value) }
            case .inlineFragment(let fragment):
                let type = fragment.typeCondition.map { schema.type($0.value) } ?? parentType
                collect(type, fragment.selectionSet, map, &seen)
            }
        }
    }
}
