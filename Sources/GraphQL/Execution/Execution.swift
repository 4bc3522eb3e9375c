import JSON

/// Thrown upward when a non-null field completed to null; the error was recorded
/// already and the nearest nullable parent becomes null (spec §6.4.4).
struct NullPropagation: Error {}

/// The state of one execution: its errors, variables and fragments.
final class Execution {
    let executor: Executor
    let source: Source
    /// The operation and variables, as resolvers are told them.
    let request: ExecutionRequest
    let fragments: [String: FragmentDefinition]
    /// The request's context, for the resolvers (`ResolverTable.Resolver`).
    let context: UnsafeRawPointer
    private(set) var errors: [GraphQLError] = []

    init(
        executor: Executor, source: Source, request: ExecutionRequest, fragments: [String: FragmentDefinition],
        context: UnsafeRawPointer
    ) {
        self.executor = executor
        self.source = source
        self.request = request
        self.fragments = fragments
        self.context = context
    }

    var schema: GraphQLSchema { executor.schema }
    var variables: JSONObject { request.variables }
    private var coercer: InputCoercer { InputCoercer(schema: executor.schema) }
    /// Built when a plan or an introspection result is, not for every execution.
    var collector: FieldCollector {
        FieldCollector(schema: executor.schema, fragments: fragments, variables: variables, coercer: coercer)
    }

    /// Executes the operation's root selection (spec §6.2) and collects its errors.
    func run(_ rootPlan: SelectionPlan) -> ExecutionResult {
        let data: JSON
        do {
            var path: [PathElement] = []
            data = try executeSelectionSet(rootPlan, source: .null, path: &path)
        } catch {
            data = .null  // a non-null root field was null: spec §6.4.4
        }
        return ExecutionResult(data: data, errors: errors)
    }

    // MARK: Selection sets

    /// ExecuteSelectionSet: the plan's fields in request order, on the object at `path`.
    ///
    /// The response path is one array for the whole execution, extended and shortened in
    /// place as execution descends (an error or a resolver's info keeps a copy), rather
    /// than a node allocated for every object field and list item.
    func executeSelectionSet(
        _ plan: SelectionPlan, source: ResolvedValue, path: inout [PathElement]
    ) throws(NullPropagation) -> JSON {
        // Only an introspection type's fields read the parent (the query root's meta-fields do not).
        let parent = plan.isIntrospectionType ? Introspection.parent(source) : nil
        // A JSON object parent, unwrapped once for the fields read from it by name.
        let object: JSONObject?
        if case .json(.object(let json)) = source { object = json } else { object = nil }
        var values: [JSON] = []
        values.reserveCapacity(plan.fields.count)
        for field in plan.fields {
            values.append(try executeField(plan, field, source, object, parent, path: &path))
        }
        // Every object the plan completes shares the plan's key array.
        return .object(JSONObject(uniqueKeys: plan.responseKeys, values: values))
    }

    /// The plan of the root selection set on `rootType`: shared by the executions of a
    /// prepared document when field collection cannot depend on variables.
    func rootPlan(_ rootType: ObjectType, plans: ExecutionPlans?) -> SelectionPlan {
        let operation = request.operation
        guard let plans else { return makePlan(rootType, CollectionOfOne(operation.definition.selectionSet)) }
        return plans.root(operationStart: operation.definition.span.start, executor: executor) {
            makePlan(rootType, CollectionOfOne(operation.definition.selectionSet))
        }
    }

    /// The plan of `field`'s sub-selections on `objectType`.
    private func makePlan(_ objectType: ObjectType, subSelectionsOf field: FieldPlan) -> SelectionPlan {
        guard field.mergedNodes.isEmpty else { return makePlan(objectType, field.subSelections) }
        // One node, nearly always: its selection set without an array to hold it.
        guard let selectionSet = field.node.selectionSet else { return makePlan(objectType, EmptyCollection()) }
        return makePlan(objectType, CollectionOfOne(selectionSet))
    }

    /// CollectFields over `selectionSets` on `objectType`, with each response key's
    /// definition looked up once.
    func makePlan(_ objectType: ObjectType, _ selectionSets: some Collection<SelectionSet>) -> SelectionPlan {
        let grouped = collector.collect(objectType, selectionSets)
        let isQueryRoot = objectType === schema.queryType
        // Only the introspection types have names starting with `__` (spec §3.1.1 reserves
        // them), so a prefix test stands in for hashing the name into the set.
        let isIntrospectionType = objectType.name.hasPrefix("__")
        let introspective = isQueryRoot || isIntrospectionType
        let objectFields = executor.fields(of: objectType)
        // Introspection types have no resolvers unless the executable binds some.
        let resolvers = isIntrospectionType && executor.introspectionIsBuiltIn ? nil : objectFields?.resolvers
        var fields: [FieldPlan] = []
        fields.reserveCapacity(grouped.firstNodes.count)
        // Each node is copied once, and the copy moves into its plan: a copy retains each
        // of a node's strings and arrays.
        for key in grouped.firstNodes.indices {
            let node = grouped.firstNodes[key]
            let fieldName = node.name.value
            let kind: FieldPlan.Kind
            var resolver: ResolverTable.Resolver? = nil
            // The definition's type and arguments, read in place: copying the whole
            // `FieldDef` retains and releases every one of its strings.
            let type: TypeRef
            let arguments: [InputValueDef]
            let namedType: NamedType?
            if fieldName == "__typename" {
                kind = .typename
                type = Introspection.typenameField.type
                arguments = []
                namedType = schema.type(type.namedType)
            } else if let index = objectFields.map({ $0.position(of: fieldName) }) ?? objectType.fieldPosition(fieldName) {
                kind = .field
                resolver = resolvers?[index]
                type = objectType.fields[index].type
                arguments = objectType.fields[index].arguments
                namedType = objectFields.map { $0.types[index] } ?? schema.type(type.namedType)
            } else if isQueryRoot, let meta = Introspection.metaField(fieldName) {
                kind = .meta
                type = meta.type
                arguments = meta.arguments
                namedType = schema.type(type.namedType)
            } else {
                continue
            }
            // Arguments without variables coerce the same way every time (an error too).
            var constantArguments: Result<JSONObject, GraphQLError>? = nil
            if !node.arguments.contains(where: { VariableScan.uses($0.value) }) {
                do throws(GraphQLError) {
                    constantArguments = .success(
                        arguments.isEmpty ? JSONObject() : try coerceArguments(arguments, node))
                } catch {
                    constantArguments = .failure(error)
                }
            }
            fields.append(FieldPlan(
                node: consume node, mergedNodes: grouped.laterNodes(of: key), kind: kind, resolver: resolver,
                parentType: objectType, type: type, arguments: arguments, namedType: namedType,
                constantArguments: constantArguments, introspective: introspective))
        }
        // The collected keys serve as the plan's unless a field was left out.
        let responseKeys = fields.count == grouped.keys.count ? grouped.keys.names : fields.map(\.responseKey)
        return SelectionPlan(
            objectType: objectType, fields: fields, responseKeys: responseKeys, introspective: introspective,
            isIntrospectionType: isIntrospectionType)
    }

    // MARK: Fields

    /// ExecuteField (spec §6.4) of the object at `path`, whose source is `source` (and
    /// `object`, when that is a JSON object).
    private func executeField(
        _ plan: SelectionPlan, _ field: FieldPlan, _ source: ResolvedValue, _ object: JSONObject?,
        _ parent: Introspection.Parent?, path: inout [PathElement]
    ) throws(NullPropagation) -> JSON {
        if case .typename = field.kind { return .string(plan.objectType.name) }
        // A field read from a JSON object parent by name (graphql-js's default resolver)
        // completes from the JSON value itself: it needs no arguments, and a scalar that
        // already has its serialised form is the response value as it is.
        if let object, field.resolver == nil, !plan.introspective, field.arguments.isEmpty {
            let value = object[field.fieldName]
            if let value, case .scalar(_, let builtIn?) = field.completion, let serialized = builtIn.serialized(value) {
                return serialized
            }
            return try completeField(field, value.map(ResolvedValue.init) ?? .null, path: &path)
        }
        let resolved: ResolvedValue
        do {
            let arguments: JSONObject
            if field.arguments.isEmpty {
                arguments = JSONObject()
            } else if let constant = field.constantArguments {
                arguments = try constant.get()
            } else {
                arguments = try coerceArguments(field.arguments, field.node)
            }
            if case .meta = field.kind, let model = executor.introspectionModel,
                let value = completeMetaField(field, arguments, model)
            {
                return value
            }
            if let resolver = field.resolver {
                let info = ResolveInfo(field: field, parentPath: path, request: request)
                resolved = try resolver.resolve(source, arguments, context, info)
            } else if plan.introspective {
                resolved = try Introspection.resolve(
                    plan.objectType.name, field.fieldName, field.introspectionName, parent, arguments, schema,
                    isIntrospectionType: plan.isIntrospectionType)
            } else if let object {
                resolved = object[field.fieldName].map(ResolvedValue.init) ?? .null
            } else {
                resolved = .null
            }
        } catch {
            return try fieldError(error, field, path)
        }
        if case .scalar(_, let builtIn?) = field.completion, let serialized = builtIn.serialized(resolved) {
            return serialized
        }
        return try completeField(field, resolved, path: &path)
    }

    /// CompleteValue of `field`'s `value`, with its field errors handled: scalars and enums
    /// (nullable or not, no list) here, without descending through their type, the rest by
    /// `complete`. `path` is the parent object's.
    private func completeField(_ field: FieldPlan, _ value: ResolvedValue, path: inout [PathElement]) throws(NullPropagation) -> JSON {
        do throws(GraphQLError) {
            switch field.completion {
            case .scalar(let scalar, _): return try completeScalar(scalar, field, value)
            case .enumeration(let enumType): return try completeEnum(enumType, field, value)
            case .object, .general: break
            }
        } catch {
            return try fieldError(error, field, path)
        }
        return try complete(field, value, path: &path)
    }

    /// CompleteValue of a field that is neither a scalar nor an enum, with its field errors
    /// handled: the sub-selection of an object type directly, anything else through
    /// `completeValue`. `path` is the parent object's; the field's key is added while completing.
    private func complete(_ field: FieldPlan, _ value: ResolvedValue, path: inout [PathElement]) throws(NullPropagation) -> JSON {
        let type = field.type
        path.append(.key(field.responseKey))
        defer { path.removeLast() }
        if case .object(let objectType) = field.completion {
            switch value {
            case .null, .json(.null):
                guard type.isNonNull else { return .null }
                return try fieldError(nullError(field), field, path, hasKey: true)
            default:
                do {
                    return try executeSelectionSet(
                        field.child(objectType) { makePlan($0, subSelectionsOf: field) }, source: value, path: &path)
                } catch {
                    if type.isNonNull { throw error }
                    return .null
                }
            }
        }
        do {
            return try completeValue(type, field, &path, value)
        } catch is NullPropagation {
            if type.isNonNull { throw NullPropagation() }
            return .null
        } catch {
            return try fieldError(error, field, path, hasKey: true)
        }
    }

    /// `__schema` or `__type` completed from the introspection model; nil when the general
    /// way must complete it (an argument of an introspection field did not coerce).
    private func completeMetaField(_ field: FieldPlan, _ arguments: JSONObject, _ model: IntrospectionModel) -> JSON? {
        let introspection = IntrospectionExecution(model: model, collector: collector)
        do throws(IntrospectionExecution.Fallback) {
            switch field.introspectionName {
            case .schemaMeta:
                return try introspection.schema(field.subSelections)
            case .typeMeta:
                guard case .string(let name)? = arguments["name"] else { return .null }
                return try introspection.type(named: name, field.subSelections)
            default:
                return nil
            }
        } catch {
            return nil
        }
    }

    /// Records an error of `field` (spec §6.4.4) and returns null, or propagates when
    /// the field is non-null. `path` is the parent object's, or the field's own when
    /// `hasKey`.
    private func fieldError(
        _ error: any Error, _ field: FieldPlan, _ path: [PathElement], hasKey: Bool = false
    ) throws(NullPropagation) -> JSON {
        try recordError(error, field, hasKey ? path : path + [.key(field.responseKey)], type: field.type)
    }

    /// Records an error at `path` of a value of `type` for `field` (spec §6.4.4) and
    /// returns null, or propagates when `type` is non-null.
    private func recordError(
        _ error: any Error, _ field: FieldPlan, _ path: [PathElement], type: TypeRef
    ) throws(NullPropagation) -> JSON {
        if error is NullPropagation {
            if type.isNonNull { throw NullPropagation() }
            return .null
        }
        var graphQLError = (error as? GraphQLError) ?? executor.mapError(error)
        if graphQLError.locations.isEmpty { graphQLError.locations = field.nodes.map { source.location(of: $0.span.start) } }
        if graphQLError.path == nil { graphQLError.path = path }
        errors.append(graphQLError)
        if type.isNonNull { throw NullPropagation() }
        return .null
    }

    /// The error of a non-null field that completed to null.
    private func nullError(_ field: FieldPlan) -> GraphQLError {
        GraphQLError("Cannot return null for non-nullable field \(field.parentType.name).\(field.fieldName).")
    }

    /// CoerceArgumentValues (spec §6.4.1) with graphql-js's messages.
    private func coerceArguments(_ arguments: [InputValueDef], _ node: Field) throws(GraphQLError) -> JSONObject {
        var coerced = JSONObject()
        for argument in arguments {
            let name = argument.name
            /// No value given: the default if there is one, an error if the argument is required.
            func useDefault(orFail missing: @autoclosure () -> String, at offset: Int) throws(GraphQLError) {
                if let defaultValue = argument.defaultValue {
                    coerced.appendUnchecked(name, coercer.literal(defaultValue, type: argument.type, variables: [:]) ?? .null)
                } else if argument.type.isNonNull {
                    throw GraphQLError(missing(), locations: [source.location(of: offset)])
                }
            }
            guard let argumentNode = node.arguments.first(where: { $0.name.value == name }) else {
                try useDefault(
                    orFail: "Argument \"\(name)\" of required type \"\(argument.type)\" was not provided.", at: node.span.start)
                continue
            }
            let valueNode = argumentNode.value
            var isNull = false
            if case .null = valueNode.kind { isNull = true }
            if case .variable(let variable) = valueNode.kind {
                guard let value = variables[variable] else {
                    try useDefault(
                        orFail: "Argument \"\(name)\" of required type \"\(argument.type)\" was provided the variable \"$\(variable)\" which was not provided a runtime value.",
                        at: valueNode.span.start)
                    continue
                }
                if case .null = value { isNull = true }
            }
            if isNull && argument.type.isNonNull {
                throw GraphQLError(
                    "Argument \"\(name)\" of non-null type \"\(argument.type)\" must not be null.",
                    locations: [source.location(of: valueNode.span.start)])
            }
            guard let value = coercer.literal(valueNode, type: argument.type, variables: variables) else {
                throw GraphQLError(
                    "Argument \"\(name)\" has invalid value \(print(valueNode)).",
                    locations: [source.location(of: valueNode.span.start)])
            }
            coerced.appendUnchecked(name, value)
        }
        return coerced
    }

    // MARK: Value completion

    /// CompleteValue for a field whose type is a scalar, nullable or not: the common
    /// leaf, completed without descending through its type.
    private func completeScalar(_ scalar: ScalarType, _ field: FieldPlan, _ value: ResolvedValue) throws(GraphQLError) -> JSON {
        let completed: JSON
        switch value {
        case .null, .json(.null):
            completed = .null
        default:
            do {
                completed = try scalar.coercion.serialize(value)
            } catch {
                throw GraphQLError(error.message)
            }
        }
        if case .null = completed, field.type.isNonNull { throw nullError(field) }
        return completed
    }

    /// CompleteValue for a field whose type is an enum, nullable or not.
    private func completeEnum(_ enumType: EnumType, _ field: FieldPlan, _ value: ResolvedValue) throws(GraphQLError) -> JSON {
        switch value {
        case .null, .json(.null):
            if field.type.isNonNull { throw nullError(field) }
            return .null
        default:
            return try serializeEnum(enumType, value)
        }
    }

    /// The result coercion of an enum (spec §3.9): the value's name, when the enum has a value
    /// of that name.
    private func serializeEnum(_ enumType: EnumType, _ value: ResolvedValue) throws(GraphQLError) -> JSON {
        switch value {
        case .string(let name), .json(.string(let name)):
            if enumType.values.contains(where: { $0.name == name }) { return .string(name) }
        default:
            break
        }
        throw GraphQLError("Enum \"\(enumType.name)\" cannot represent value: \(value.inspected)")
    }

    /// CompleteValue (spec §6.4.3) of a value at `path`. Throws `GraphQLError` for this
    /// field's own problems and `NullPropagation` when a non-null descendant was null.
    private func completeValue(
        _ type: TypeRef, _ field: FieldPlan, _ path: inout [PathElement], _ value: ResolvedValue
    ) throws -> JSON {
        if case .nonNull(let inner) = type {
            let completed = try completeValue(inner, field, &path, value)
            if case .null = completed { throw nullError(field) }
            return completed
        }
        if case .null = value { return .null }
        if case .json(.null) = value { return .null }
        switch type {
        case .nonNull:
            fatalError("unreachable: handled above")
        case .list(let itemType):
            let items: [ResolvedValue]
            switch value {
            case .list(let list): items = list
            case .json(.array(let array)): items = array.map(ResolvedValue.init)
            default:
                throw GraphQLError("Expected Iterable, but did not find one for field \"\(field.parentType.name).\(field.fieldName)\".")
            }
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                path.append(.index(index))
                defer { path.removeLast() }
                do {
                    out.append(try completeValue(itemType, field, &path, item))
                } catch {
                    out.append(try recordError(error, field, path, type: itemType))
                }
            }
            return .array(out)
        case .named(let name):
            guard let named = field.namedType else {
                throw GraphQLError("Unknown type \"\(name)\".")
            }
            switch named {
            case .scalar(let scalar):
                do {
                    return try scalar.coercion.serialize(value)
                } catch {
                    throw GraphQLError(error.message)
                }
            case .enumType(let enumType):
                return try serializeEnum(enumType, value)
            case .object(let object):
                return try executeSelectionSet(field.child(object) { makePlan($0, subSelectionsOf: field) }, source: value, path: &path)
            case .interface, .union:
                let object = try resolveAbstractType(named, value, field)
                return try executeSelectionSet(field.child(object) { makePlan($0, subSelectionsOf: field) }, source: value, path: &path)
            case .inputObject:
                throw GraphQLError("Type \"\(name)\" is an input type and cannot be a field's type.")
            }
        }
    }

    /// ResolveAbstractType: by the Swift type bound to an object type, or a JSON
    /// parent's `__typename`.
    private func resolveAbstractType(_ abstract: NamedType, _ value: ResolvedValue, _ field: FieldPlan) throws -> ObjectType {
        let candidates = schema.possibleTypes(abstract.name)
        var resolvedName: String? = nil
        switch value {
        case .value(let swiftValue):
            resolvedName = candidates.first { executor.typeTests[$0.name]?(swiftValue) == true }?.name
        case .json(.object(let object)):
            if case .string(let name)? = object["__typename"] { resolvedName = name }
        default:
            break
        }
        guard let resolvedName else {
            throw GraphQLError(
                "Abstract type \"\(abstract.name)\" must resolve to an Object type at runtime for field \"\(field.parentType.name).\(field.fieldName)\". Either the \"\(abstract.name)\" type should provide a \"resolveType\" function or each possible type should provide an \"isTypeOf\" function.")
        }
        guard case .object(let object)? = schema.type(resolvedName) else {
            throw GraphQLError("Abstract type \"\(abstract.name)\" was resolved to a type \"\(resolvedName)\" that does not exist inside the schema.")
        }
        guard candidates.contains(where: { $0 === object }) else {
            throw GraphQLError("Runtime Object type \"\(object.name)\" is not a possible type for \"\(abstract.name)\".")
        }
        return object
    }
}
