import JSON

/// Completes the `__schema` and `__type` meta-fields straight from an
/// `IntrospectionModel`: fields collected once per introspection type and selection
/// (fragments, aliases, `@skip`/`@include` as anywhere else) into a `Plan` that every
/// object completed there shares, values copied from the model, one response object
/// per value with the keys array of its plan. No resolver runs and no source value is
/// boxed.
///
/// A `__Type` value depends only on its type node and its plan, so each plan keeps the
/// values it completed: the full introspection query asks for the same type references
/// (`String!`, `[ID!]!`) on hundreds of fields and arguments, and each is built once per
/// execution and then shared (a JSON value is copied by reference).
///
/// Used when no resolver is bound to an introspection type. Every value the model holds
/// is present where the type is non-null, so completion cannot fail; the one thing that
/// can is coercing an `includeDeprecated` argument, and then it throws `Fallback` and the
/// executor completes the field the general way, which reports the error with its path.
final class IntrospectionExecution {
    let model: IntrospectionModel
    let collector: FieldCollector
    /// Set when an `includeDeprecated` argument does not coerce: the value completed so
    /// far is discarded and `Fallback` thrown (plans are built while completing).
    private var failed = false
    /// The plans built so far, by the field nodes they collected: fragments spread in
    /// several places (`...TypeRef` under `type`, `interfaces` and `possibleTypes`) collect
    /// the same fields and so share one plan and the values it completed. Searched
    /// linearly up to `linearPlanLimit` (a dictionary of a private key type costs more
    /// than a dozen comparisons), then by `planTable`.
    private var plans: [(key: PlanKey, plan: Plan)] = []
    private var planTable: [PlanKey: Plan] = [:]
    private static var linearPlanLimit: Int { 16 }

    init(model: IntrospectionModel, collector: FieldCollector) {
        self.model = model
        self.collector = collector
        plans.reserveCapacity(Self.linearPlanLimit)
    }

    deinit {
        // A fragment that spreads itself under a field (a document that skipped
        // validation) makes a plan its own descendant.
        for (_, plan) in plans { plan.releaseChildren() }
        for plan in planTable.values { plan.releaseChildren() }
    }

    /// The general executor must complete this field (it reports the error).
    struct Fallback: Error {}

    /// The introspection object types.
    enum Kind {
        case schema, type, field, inputValue, enumValue, directive
    }

    /// The fields collected on one introspection type over one list of selection sets,
    /// in response order. Child plans are built when a value first completes there (an
    /// `ofType` chain deeper than the schema's types is never built).
    final class Plan {
        struct Entry {
            let name: Introspection.FieldName
            let includeDeprecated: Bool
            /// False for a field the type does not define: its key is left out.
            let defined: Bool
        }

        /// The response keys, shared by every object this plan completes.
        let keys: [String]
        let entries: [Entry]
        /// The sub-selection set of each entry's first field, for its child plan.
        private let selections: [SelectionSet?]
        /// Further sub-selection sets merged into an entry by fields with the same key (rare).
        private let merged: [(entry: Int, selectionSet: SelectionSet)]
        // Plans belong to one execution, which is single-threaded and never holds an
        // access to these across a call that could start another, so the dynamic
        // exclusivity checks (a large part of completing a small object) are skipped.
        /// Built on the first request for a child plan.
        @exclusivity(unchecked) private var children: [Plan?] = []
        /// For `__Type` plans: the position in `completedValues` of the value completed for
        /// each type node (by index), or -1.
        @exclusivity(unchecked) fileprivate var completedSlots: [Int]
        @exclusivity(unchecked) fileprivate var completedValues: [JSON] = []

        fileprivate init(
            kind: Kind, keys: [String], entries: [Entry], selections: [SelectionSet?],
            merged: [(entry: Int, selectionSet: SelectionSet)], typeCount: Int
        ) {
            self.keys = keys
            self.entries = entries
            self.selections = selections
            self.merged = merged
            self.completedSlots = kind == .type ? Array(repeating: -1, count: typeCount) : []
        }

        fileprivate func child(_ index: Int, _ kind: Kind, _ execution: IntrospectionExecution) -> Plan {
            if children.isEmpty {
                children = Array(repeating: nil, count: entries.count)
            } else if let plan = children[index] {
                return plan
            }
            var selectionSets = selections[index].map { [$0] } ?? []
            for (entry, selectionSet) in merged where entry == index { selectionSets.append(selectionSet) }
            let plan = execution.plan(kind, selectionSets)
            children[index] = plan
            return plan
        }

        fileprivate func releaseChildren() { children = [] }
    }

    /// What identifies a plan within one execution: its type and the positions of the
    /// field nodes it collected, in order (merged ones included).
    private struct PlanKey: Hashable {
        let kind: Kind
        let fields: [Int]

        // The first and last field tell plans apart well enough; `==` compares all.
        func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(fields.count)
            hasher.combine(fields.first)
            hasher.combine(fields.last)
        }
    }

    private func knownPlan(_ key: PlanKey) -> Plan? {
        if plans.count < Self.linearPlanLimit { return plans.first { $0.key == key }?.plan }
        return planTable[key]
    }

    private func remember(_ plan: Plan, _ key: PlanKey) {
        if plans.count < Self.linearPlanLimit {
            plans.append((key, plan))
            if plans.count == Self.linearPlanLimit { for (key, plan) in plans { planTable[key] = plan } }
        } else {
            planTable[key] = plan
        }
    }

    /// The value of `__schema` with sub-selections `selectionSets`.
    func schema(_ selectionSets: [SelectionSet]) throws(Fallback) -> JSON {
        let value = complete(schemaWith: plan(.schema, selectionSets))
        if failed { throw Fallback() }
        return value
    }

    /// The value of `__type` for the named type called `name` (null when there is none).
    func type(named name: String, _ selectionSets: [SelectionSet]) throws(Fallback) -> JSON {
        guard let index = model.typeIndex[name] else { return .null }
        let value = complete(type: index, plan(.type, selectionSets))
        if failed { throw Fallback() }
        return value
    }

    // MARK: Plans

    private func objectType(_ kind: Kind) -> ObjectType {
        switch kind {
        case .schema: model.objectTypes.schema
        case .type: model.objectTypes.type
        case .field: model.objectTypes.field
        case .inputValue: model.objectTypes.inputValue
        case .enumValue: model.objectTypes.enumValue
        case .directive: model.objectTypes.directive
        }
    }

    /// Whether the introspection type `kind` has the field `name` (spec §4.5; Prelude.swift)
    /// and whether that field takes `includeDeprecated`.
    private static func defines(_ kind: Kind, _ name: Introspection.FieldName) -> (defined: Bool, includeDeprecated: Bool) {
        switch (kind, name) {
        case (_, .typename): (true, false)
        case (.schema, .description), (.schema, .types), (.schema, .queryType), (.schema, .mutationType),
            (.schema, .subscriptionType), (.schema, .directives):
            (true, false)
        case (.type, .fields), (.type, .enumValues), (.type, .inputFields): (true, true)
        case (.type, .kind), (.type, .name), (.type, .description), (.type, .specifiedByURL), (.type, .interfaces),
            (.type, .possibleTypes), (.type, .ofType), (.type, .isOneOf):
            (true, false)
        case (.field, .args): (true, true)
        case (.field, .name), (.field, .description), (.field, .type), (.field, .isDeprecated),
            (.field, .deprecationReason):
            (true, false)
        case (.inputValue, .name), (.inputValue, .description), (.inputValue, .type), (.inputValue, .defaultValue),
            (.inputValue, .isDeprecated), (.inputValue, .deprecationReason):
            (true, false)
        case (.enumValue, .name), (.enumValue, .description), (.enumValue, .isDeprecated),
            (.enumValue, .deprecationReason):
            (true, false)
        case (.directive, .args): (true, true)
        case (.directive, .name), (.directive, .description), (.directive, .isRepeatable), (.directive, .locations):
            (true, false)
        default: (false, false)
        }
    }

    /// The fields collected so far for a plan: parallel arrays, one element per key.
    private struct Collected {
        var keys: [String] = []
        var entries: [Plan.Entry] = []
        var selections: [SelectionSet?] = []
        var merged: [(entry: Int, selectionSet: SelectionSet)] = []
        var visited: [String] = []
        /// The start of each field node collected, for the plan's key.
        var fieldStarts: [Int] = []
        /// Whether a node was built in code (no position to key the plan by).
        var hasSyntheticField = false
    }

    /// CollectFields on the introspection type `kind` over `selectionSets`; fields the
    /// type does not define are left out, as ExecuteSelectionSet skips them.
    private func plan(_ kind: Kind, _ selectionSets: [SelectionSet]) -> Plan {
        var collected = Collected()
        // Room for the usual selections (fragments hide how many there are): growing
        // from one or two keys would reallocate each array several times.
        let capacity = max(8, selectionSets.first?.selections.count ?? 0)
        collected.keys.reserveCapacity(capacity)
        collected.entries.reserveCapacity(capacity)
        collected.selections.reserveCapacity(capacity)
        collected.fieldStarts.reserveCapacity(capacity)
        let objectType = objectType(kind)
        for selectionSet in selectionSets { collect(kind, objectType, selectionSet, &collected) }
        let key = collected.hasSyntheticField ? nil : PlanKey(kind: kind, fields: collected.fieldStarts)
        if let key, let plan = knownPlan(key) { return plan }
        if collected.entries.contains(where: { !$0.defined }) {
            // Positions change: `merged` is renumbered along.
            var position = Array(repeating: -1, count: collected.entries.count)
            var kept = Collected()
            for (index, entry) in collected.entries.enumerated() where entry.defined {
                position[index] = kept.entries.count
                kept.keys.append(collected.keys[index])
                kept.entries.append(entry)
                kept.selections.append(collected.selections[index])
            }
            kept.merged = collected.merged.compactMap { position[$0.entry] < 0 ? nil : (position[$0.entry], $0.selectionSet) }
            collected = kept
        }
        let plan = Plan(
            kind: kind, keys: collected.keys, entries: collected.entries, selections: collected.selections,
            merged: collected.merged, typeCount: model.types.count)
        if let key { remember(plan, key) }
        return plan
    }

    /// CollectFields (spec §6.3.2) straight into plan entries: a response key seen again
    /// adds its sub-selections to the first field's (same-named fields, as validation
    /// guarantees; the first field's name and arguments count, as in the general path).
    private func collect(_ kind: Kind, _ objectType: ObjectType, _ selectionSet: SelectionSet, _ collected: inout Collected) {
        // By index: `for selection in` copies each selection (retaining all its parts).
        for position in selectionSet.selections.indices {
            switch selectionSet.selections[position] {
            case .field(let field):
                guard field.directives.isEmpty || collector.shouldInclude(field.directives) else { continue }
                collected.fieldStarts.append(field.span.start)
                if field.span.isSynthetic { collected.hasSyntheticField = true }
                let key = field.alias?.value ?? field.name.value
                if let index = collected.keys.firstIndex(of: key) {
                    if let selectionSet = field.selectionSet {
                        if collected.selections[index] == nil {
                            collected.selections[index] = selectionSet
                        } else {
                            collected.merged.append((index, selectionSet))
                        }
                    }
                    continue
                }
                let name = Introspection.FieldName(field.name.value)
                let (defined, takesIncludeDeprecated) = Self.defines(kind, name)
                let includeDeprecated = defined && takesIncludeDeprecated ? includeDeprecated(field.arguments) : false
                collected.keys.append(key)
                collected.entries.append(Plan.Entry(name: name, includeDeprecated: includeDeprecated, defined: defined))
                collected.selections.append(field.selectionSet)
            case .fragmentSpread(let spread):
                guard spread.directives.isEmpty || collector.shouldInclude(spread.directives) else { continue }
                let name = spread.name.value
                guard !collected.visited.contains(name), let fragment = collector.fragments[name] else { continue }
                collected.visited.append(name)
                guard collector.typeApplies(fragment.typeCondition.value, to: objectType) else { continue }
                collect(kind, objectType, fragment.selectionSet, &collected)
            case .inlineFragment(let fragment):
                guard fragment.directives.isEmpty || collector.shouldInclude(fragment.directives) else { continue }
                if let condition = fragment.typeCondition, !collector.typeApplies(condition.value, to: objectType) {
                    continue
                }
                collect(kind, objectType, fragment.selectionSet, &collected)
            }
        }
    }

    /// CoerceArgumentValues for `includeDeprecated: Boolean = false`: a missing argument
    /// or variable takes the default; null means false, as it does in graphql-js. A value
    /// that does not coerce marks the execution failed.
    private func includeDeprecated(_ arguments: [Argument]) -> Bool {
        guard let argument = arguments.first(where: { $0.name.value == "includeDeprecated" }) else { return false }
        if case .boolean(let value) = argument.value.kind { return value }
        if case .variable(let name) = argument.value.kind, collector.variables[name] == nil { return false }
        guard let value = collector.coercer.literal(argument.value, type: .named("Boolean"), variables: collector.variables)
        else {
            failed = true
            return false
        }
        if case .bool(true) = value { return true }
        return false
    }

    // MARK: Completion

    /// One response object of `plan`, its values from `value` per entry (and its index).
    private func object(_ plan: Plan, _ value: (Plan.Entry, Int) -> JSON) -> JSON {
        let entries = plan.entries
        return .object(JSONObject(uniqueKeys: plan.keys, values: entries.indices.map { value(entries[$0], $0) }))
    }

    private func complete(schemaWith plan: Plan) -> JSON {
        object(plan) { entry, index in
            switch entry.name {
            case .typename: return .string("__Schema")
            case .description: return model.description
            case .types:
                let child = plan.child(index, .type, self)
                return .array((0..<model.namedTypeCount).map { complete(type: $0, child) })
            case .queryType: return complete(type: model.queryType, plan.child(index, .type, self))
            case .mutationType:
                guard let type = model.mutationType else { return .null }
                return complete(type: type, plan.child(index, .type, self))
            case .subscriptionType:
                guard let type = model.subscriptionType else { return .null }
                return complete(type: type, plan.child(index, .type, self))
            case .directives:
                let child = plan.child(index, .directive, self)
                return .array(model.directives.map { complete($0, child) })
            default: return .null
            }
        }
    }

    /// The `__Type` value of `types[index]`, completed once per plan.
    private func complete(type index: Int, _ plan: Plan) -> JSON {
        let slot = plan.completedSlots[index]
        if slot >= 0 { return plan.completedValues[slot] }
        let type = model.types[index]
        let value = object(plan) { entry, entryIndex in
            switch entry.name {
            case .typename: return .string("__Type")
            case .kind: return type.kind
            case .name: return type.name
            case .description: return type.description
            case .specifiedByURL: return type.specifiedByURL
            case .isOneOf: return type.isOneOf
            case .ofType:
                guard let inner = type.ofType else { return .null }
                return complete(type: inner, plan.child(entryIndex, .type, self))
            case .fields:
                guard let fields = type.fields else { return .null }
                let child = plan.child(entryIndex, .field, self)
                return .array(fields.items(includeDeprecated: entry.includeDeprecated).map { complete($0, child) })
            case .interfaces, .possibleTypes:
                guard let list = entry.name == .interfaces ? type.interfaces : type.possibleTypes else { return .null }
                let child = plan.child(entryIndex, .type, self)
                return .array(list.map { complete(type: $0, child) })
            case .enumValues:
                guard let enumValues = type.enumValues else { return .null }
                let child = plan.child(entryIndex, .enumValue, self)
                return .array(enumValues.items(includeDeprecated: entry.includeDeprecated).map { complete($0, child) })
            case .inputFields:
                guard let inputFields = type.inputFields else { return .null }
                return complete(inputFields.items(includeDeprecated: entry.includeDeprecated), plan.child(entryIndex, .inputValue, self))
            default: return .null
            }
        }
        if plan.completedValues.isEmpty { plan.completedValues.reserveCapacity(plan.completedSlots.count) }
        plan.completedSlots[index] = plan.completedValues.count
        plan.completedValues.append(value)
        return value
    }

    private func complete(_ field: IntrospectionModel.FieldNode, _ plan: Plan) -> JSON {
        object(plan) { entry, index in
            switch entry.name {
            case .typename: return .string("__Field")
            case .name: return field.name
            case .description: return field.description
            case .args:
                return complete(field.args.items(includeDeprecated: entry.includeDeprecated), plan.child(index, .inputValue, self))
            case .type: return complete(type: field.type, plan.child(index, .type, self))
            case .isDeprecated: return field.isDeprecated
            case .deprecationReason: return field.deprecationReason
            default: return .null
            }
        }
    }

    private func complete(_ inputs: [IntrospectionModel.InputValueNode], _ plan: Plan) -> JSON {
        .array(inputs.map { complete($0, plan) })
    }

    private func complete(_ input: IntrospectionModel.InputValueNode, _ plan: Plan) -> JSON {
        object(plan) { entry, index in
            switch entry.name {
            case .typename: return .string("__InputValue")
            case .name: return input.name
            case .description: return input.description
            case .type: return complete(type: input.type, plan.child(index, .type, self))
            case .defaultValue: return input.defaultValue
            case .isDeprecated: return input.isDeprecated
            case .deprecationReason: return input.deprecationReason
            default: return .null
            }
        }
    }

    private func complete(_ value: IntrospectionModel.EnumValueNode, _ plan: Plan) -> JSON {
        object(plan) { entry, _ in
            switch entry.name {
            case .typename: return .string("__EnumValue")
            case .name: return value.name
            case .description: return value.description
            case .isDeprecated: return value.isDeprecated
            case .deprecationReason: return value.deprecationReason
            default: return .null
            }
        }
    }

    private func complete(_ directive: IntrospectionModel.DirectiveNode, _ plan: Plan) -> JSON {
        object(plan) { entry, index in
            switch entry.name {
            case .typename: return .string("__Directive")
            case .name: return directive.name
            case .description: return directive.description
            case .isRepeatable: return directive.isRepeatable
            case .locations: return directive.locations
            case .args:
                return complete(directive.args.items(includeDeprecated: entry.includeDeprecated), plan.child(index, .inputValue, self))
            default: return .null
            }
        }
    }
}
