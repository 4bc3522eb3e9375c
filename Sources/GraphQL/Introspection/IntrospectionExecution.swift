/// Completes the `__schema` and `__type` meta-fields straight from an
/// `IntrospectionModel`: fields collected per introspection object type (fragments,
/// aliases, `@skip`/`@include` as anywhere else), values copied from the model, one
/// response object per value with the keys array of its plan shared by all of them.
/// No resolver runs and no source value is boxed.
///
/// Used when no resolver is bound to an introspection type. Every value the model holds
/// is present where the type is non-null, so completion cannot fail; the one thing that
/// can is coercing an `includeDeprecated` argument, and then it throws `Fallback` and the
/// executor completes the field the general way, which reports the error with its path.
struct IntrospectionExecution {
    let model: IntrospectionModel
    let collector: FieldCollector

    /// The general executor must complete this field (it reports the error).
    struct Fallback: Error {}

    /// The introspection object types.
    enum Kind {
        case schema, type, field, inputValue, enumValue, directive
    }

    /// The fields collected on one introspection object type, in response order. Child
    /// plans are built when a value first completes there (an `ofType` chain deeper than
    /// the schema's types is never built).
    final class Plan {
        struct Entry {
            let name: Introspection.FieldName
            let includeDeprecated: Bool
            /// The sub-selection sets of the key's fields: the first, then any merged ones.
            var firstSelections: SelectionSet?
            var moreSelections: [SelectionSet] = []
            /// False for a field the type does not define: its key is left out.
            let defined: Bool
        }

        let kind: Kind
        /// The response keys, shared by every object this plan completes.
        let keys: [String]
        let entries: [Entry]
        private var children: [Plan?]

        init(kind: Kind, keys: [String], entries: [Entry]) {
            self.kind = kind
            self.keys = keys
            self.entries = entries
            self.children = Array(repeating: nil, count: entries.count)
        }

        func child(_ index: Int, _ kind: Kind, _ execution: IntrospectionExecution) throws(Fallback) -> Plan {
            if let plan = children[index] { return plan }
            let entry = entries[index]
            let plan = try execution.plan(kind, entry.firstSelections, entry.moreSelections)
            children[index] = plan
            return plan
        }
    }

    /// The value of `__schema` with sub-selections `selectionSets`.
    func schema(_ selectionSets: [SelectionSet]) throws(Fallback) -> JSON {
        try complete(schemaWith: plan(.schema, selectionSets.first, selectionSets.dropFirst()))
    }

    /// The value of `__type` for the named type called `name` (null when there is none).
    func type(named name: String, _ selectionSets: [SelectionSet]) throws(Fallback) -> JSON {
        guard let index = model.typeIndex[name] else { return .null }
        return try complete(model.types[index], plan(.type, selectionSets.first, selectionSets.dropFirst()))
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

    /// CollectFields on the introspection type `kind` over `first` and then `more`; fields
    /// the type does not define are left out, as ExecuteSelectionSet skips them.
    func plan<More: Sequence<SelectionSet>>(_ kind: Kind, _ first: SelectionSet?, _ more: More) throws(Fallback) -> Plan {
        var keys: [String] = []
        var entries: [Plan.Entry] = []
        if let first {
            keys.reserveCapacity(first.selections.count)
            entries.reserveCapacity(first.selections.count)
        }
        var visited: [String] = []
        let objectType = objectType(kind)
        if let first { try collect(kind, objectType, first, &keys, &entries, &visited) }
        for selectionSet in more { try collect(kind, objectType, selectionSet, &keys, &entries, &visited) }
        if entries.contains(where: { !$0.defined }) {
            keys = zip(keys, entries).filter { $0.1.defined }.map(\.0)
            entries = entries.filter(\.defined)
        }
        return Plan(kind: kind, keys: keys, entries: entries)
    }

    /// CollectFields (spec §6.3.2) straight into plan entries: a response key seen again
    /// adds its sub-selections to the first field's (same-named fields, as validation
    /// guarantees; the first field's name and arguments count, as in the general path).
    private func collect(
        _ kind: Kind, _ objectType: ObjectType, _ selectionSet: SelectionSet, _ keys: inout [String],
        _ entries: inout [Plan.Entry], _ visited: inout [String]
    ) throws(Fallback) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                guard field.directives.isEmpty || collector.shouldInclude(field.directives) else { continue }
                let key = field.alias?.value ?? field.name.value
                if let index = keys.firstIndex(of: key) {
                    if let selectionSet = field.selectionSet {
                        if entries[index].firstSelections == nil {
                            entries[index].firstSelections = selectionSet
                        } else {
                            entries[index].moreSelections.append(selectionSet)
                        }
                    }
                    continue
                }
                let name = Introspection.FieldName(field.name.value)
                let (defined, takesIncludeDeprecated) = Self.defines(kind, name)
                let includeDeprecated = defined && takesIncludeDeprecated ? try includeDeprecated(field) : false
                keys.append(key)
                entries.append(
                    Plan.Entry(
                        name: name, includeDeprecated: includeDeprecated, firstSelections: field.selectionSet,
                        defined: defined))
            case .fragmentSpread(let spread):
                guard spread.directives.isEmpty || collector.shouldInclude(spread.directives) else { continue }
                let name = spread.name.value
                guard !visited.contains(name), let fragment = collector.fragments[name] else { continue }
                visited.append(name)
                guard collector.typeApplies(fragment.typeCondition.value, to: objectType) else { continue }
                try collect(kind, objectType, fragment.selectionSet, &keys, &entries, &visited)
            case .inlineFragment(let fragment):
                guard fragment.directives.isEmpty || collector.shouldInclude(fragment.directives) else { continue }
                if let condition = fragment.typeCondition, !collector.typeApplies(condition.value, to: objectType) {
                    continue
                }
                try collect(kind, objectType, fragment.selectionSet, &keys, &entries, &visited)
            }
        }
    }

    /// CoerceArgumentValues for `includeDeprecated: Boolean = false`: a missing argument
    /// or variable takes the default; null means false, as it does in graphql-js.
    private func includeDeprecated(_ node: Field) throws(Fallback) -> Bool {
        guard let argument = node.arguments.first(where: { $0.name.value == "includeDeprecated" }) else { return false }
        if case .boolean(let value) = argument.value.kind { return value }
        if case .variable(let name) = argument.value.kind, collector.variables[name] == nil { return false }
        guard let value = collector.coercer.literal(argument.value, type: .named("Boolean"), variables: collector.variables)
        else { throw Fallback() }
        if case .bool(true) = value { return true }
        return false
    }

    // MARK: Completion

    private func complete(_ link: IntrospectionModel.TypeLink, _ plan: Plan) throws(Fallback) -> JSON {
        switch link {
        case .named(let index): try complete(model.types[index], plan)
        case .wrapper(let node): try complete(node, plan)
        }
    }

    private func complete(schemaWith plan: Plan) throws(Fallback) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for (index, entry) in plan.entries.enumerated() {
            switch entry.name {
            case .typename: values.append(.string("__Schema"))
            case .description: values.append(model.description)
            case .types:
                let child = try plan.child(index, .type, self)
                var items: [JSON] = []
                items.reserveCapacity(model.types.count)
                for type in model.types { items.append(try complete(type, child)) }
                values.append(.array(items))
            case .queryType:
                values.append(try complete(model.types[model.queryType], plan.child(index, .type, self)))
            case .mutationType:
                guard let type = model.mutationType else { values.append(.null); continue }
                values.append(try complete(model.types[type], plan.child(index, .type, self)))
            case .subscriptionType:
                guard let type = model.subscriptionType else { values.append(.null); continue }
                values.append(try complete(model.types[type], plan.child(index, .type, self)))
            case .directives:
                let child = try plan.child(index, .directive, self)
                var items: [JSON] = []
                items.reserveCapacity(model.directives.count)
                for directive in model.directives { items.append(try complete(directive, child)) }
                values.append(.array(items))
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }

    private func complete(_ type: IntrospectionModel.TypeNode, _ plan: Plan) throws(Fallback) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for (index, entry) in plan.entries.enumerated() {
            switch entry.name {
            case .typename: values.append(.string("__Type"))
            case .kind: values.append(type.kind)
            case .name: values.append(type.name)
            case .description: values.append(type.description)
            case .specifiedByURL: values.append(type.specifiedByURL)
            case .isOneOf: values.append(type.isOneOf)
            case .ofType:
                guard let inner = type.ofType else { values.append(.null); continue }
                values.append(try complete(inner, plan.child(index, .type, self)))
            case .fields:
                guard let fields = type.fields else { values.append(.null); continue }
                let child = try plan.child(index, .field, self)
                let list = fields.items(includeDeprecated: entry.includeDeprecated)
                var items: [JSON] = []
                items.reserveCapacity(list.count)
                for field in list { items.append(try complete(field, child)) }
                values.append(.array(items))
            case .interfaces, .possibleTypes:
                guard let list = entry.name == .interfaces ? type.interfaces : type.possibleTypes else {
                    values.append(.null)
                    continue
                }
                let child = try plan.child(index, .type, self)
                var items: [JSON] = []
                items.reserveCapacity(list.count)
                for named in list { items.append(try complete(model.types[named], child)) }
                values.append(.array(items))
            case .enumValues:
                guard let enumValues = type.enumValues else { values.append(.null); continue }
                let child = try plan.child(index, .enumValue, self)
                let list = enumValues.items(includeDeprecated: entry.includeDeprecated)
                var items: [JSON] = []
                items.reserveCapacity(list.count)
                for value in list { items.append(complete(value, child)) }
                values.append(.array(items))
            case .inputFields:
                guard let inputFields = type.inputFields else { values.append(.null); continue }
                values.append(
                    try complete(inputFields.items(includeDeprecated: entry.includeDeprecated), plan.child(index, .inputValue, self)))
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }

    private func complete(_ field: IntrospectionModel.FieldNode, _ plan: Plan) throws(Fallback) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for (index, entry) in plan.entries.enumerated() {
            switch entry.name {
            case .typename: values.append(.string("__Field"))
            case .name: values.append(field.name)
            case .description: values.append(field.description)
            case .args:
                values.append(
                    try complete(field.args.items(includeDeprecated: entry.includeDeprecated), plan.child(index, .inputValue, self)))
            case .type: values.append(try complete(field.type, plan.child(index, .type, self)))
            case .isDeprecated: values.append(field.isDeprecated)
            case .deprecationReason: values.append(field.deprecationReason)
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }

    private func complete(_ inputs: [IntrospectionModel.InputValueNode], _ plan: Plan) throws(Fallback) -> JSON {
        var items: [JSON] = []
        items.reserveCapacity(inputs.count)
        for input in inputs { items.append(try complete(input, plan)) }
        return .array(items)
    }

    private func complete(_ input: IntrospectionModel.InputValueNode, _ plan: Plan) throws(Fallback) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for (index, entry) in plan.entries.enumerated() {
            switch entry.name {
            case .typename: values.append(.string("__InputValue"))
            case .name: values.append(input.name)
            case .description: values.append(input.description)
            case .type: values.append(try complete(input.type, plan.child(index, .type, self)))
            case .defaultValue: values.append(input.defaultValue)
            case .isDeprecated: values.append(input.isDeprecated)
            case .deprecationReason: values.append(input.deprecationReason)
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }

    private func complete(_ value: IntrospectionModel.EnumValueNode, _ plan: Plan) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for entry in plan.entries {
            switch entry.name {
            case .typename: values.append(.string("__EnumValue"))
            case .name: values.append(value.name)
            case .description: values.append(value.description)
            case .isDeprecated: values.append(value.isDeprecated)
            case .deprecationReason: values.append(value.deprecationReason)
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }

    private func complete(_ directive: IntrospectionModel.DirectiveNode, _ plan: Plan) throws(Fallback) -> JSON {
        var values: [JSON] = []
        values.reserveCapacity(plan.entries.count)
        for (index, entry) in plan.entries.enumerated() {
            switch entry.name {
            case .typename: values.append(.string("__Directive"))
            case .name: values.append(directive.name)
            case .description: values.append(directive.description)
            case .isRepeatable: values.append(directive.isRepeatable)
            case .locations: values.append(directive.locations)
            case .args:
                values.append(
                    try complete(directive.args.items(includeDeprecated: entry.includeDeprecated), plan.child(index, .inputValue, self)))
            default: values.append(.null)
            }
        }
        return .object(JSONObject(uniqueKeys: plan.keys, values: values))
    }
}
