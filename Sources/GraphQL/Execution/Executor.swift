extension ExecutableSchema {
    /// Executes a validated document (spec §6 ExecuteRequest): selects the operation,
    /// coerces variables, executes the selection (mutation root fields serially) and
    /// collects field errors with paths and locations.
    public func execute(
        document: Document, source: Source, operationName: String? = nil, variables: JSONObject = [:],
        context: Context
    ) -> ExecutionResult {
        let operation: OperationDefinition
        switch selectOperation(document, operationName) {
        case .success(let selected): operation = selected
        case .failure(let error): return ExecutionResult(data: nil, errors: [error])
        }
        let coercion = coerceVariables(operation, variables, source)
        guard case .success(let coercedVariables) = coercion else {
            if case .failure(let errors) = coercion { return ExecutionResult(data: nil, errors: errors.errors) }
            return ExecutionResult(data: nil)
        }
        guard let rootType = schema.rootType(operation.operation) else {
            let error = GraphQLError(
                "Schema is not configured to execute \(operation.operation.rawValue) operation.",
                locations: [source.location(of: operation.span.start)])
            return ExecutionResult(data: .null, errors: [error])
        }
        var fragments: [String: FragmentDefinition] = [:]
        for case .fragment(let fragment) in document.definitions where fragments[fragment.name.value] == nil {
            fragments[fragment.name.value] = fragment
        }
        let execution = Execution(
            executable: self, source: source, operation: operation, fragments: fragments,
            variables: coercedVariables, context: context)
        let data: JSON
        do {
            data = try execution.executeSelectionSet(
                [operation.selectionSet], objectType: rootType, source: .null, path: .root)
        } catch {
            data = .null  // a non-null root field was null: spec §6.4.4
        }
        return ExecutionResult(data: data, errors: execution.errors)
    }

    /// GetOperation (spec §6.1).
    private func selectOperation(_ document: Document, _ name: String?) -> Result<OperationDefinition, GraphQLError> {
        var found: OperationDefinition? = nil
        var count = 0
        for case .operation(let operation) in document.definitions {
            count += 1
            if let name {
                if operation.name?.value == name { return .success(operation) }
            } else {
                found = operation
            }
        }
        if let name { return .failure(GraphQLError("Unknown operation named \"\(name)\".")) }
        if count == 0 { return .failure(GraphQLError("Must provide an operation.")) }
        if count > 1 { return .failure(GraphQLError("Must provide operation name if query contains multiple operations.")) }
        return .success(found!)
    }

    private struct VariableErrors: Error { var errors: [GraphQLError] }

    /// CoerceVariableValues (spec §6.1.2), reporting every problem as graphql-js does.
    private func coerceVariables(
        _ operation: OperationDefinition, _ values: JSONObject, _ source: Source
    ) -> Result<JSONObject, VariableErrors> {
        let coercer = InputCoercer(schema: schema)
        var coerced = JSONObject()
        var errors: [GraphQLError] = []
        for definition in operation.variableDefinitions {
            let name = definition.variable.value
            let type = TypeRef(definition.type)
            let location = [source.location(of: definition.span.start)]
            guard let named = schema.namedType(type), named.isInputType else {
                errors.append(GraphQLError(
                    "Variable \"$\(name)\" expected value of type \"\(type)\" which cannot be used as an input type.",
                    locations: location))
                continue
            }
            guard let value = values[name] else {
                if let defaultValue = definition.defaultValue {
                    if let value = coercer.literal(defaultValue, type: type, variables: [:]) { coerced[name] = value }
                } else if type.isNonNull {
                    errors.append(GraphQLError(
                        "Variable \"$\(name)\" of required type \"\(type)\" was not provided.", locations: location))
                }
                continue
            }
            if case .null = value, type.isNonNull {
                errors.append(GraphQLError(
                    "Variable \"$\(name)\" of non-null type \"\(type)\" must not be null.", locations: location))
                continue
            }
            var problems: [InputCoercer.Problem] = []
            let result = coercer.coerce(value, to: type, problems: &problems)
            for problem in problems {
                var prefix = "Variable \"$\(name)\" got invalid value \(problem.value.inspected)"
                if !problem.path.isEmpty {
                    prefix += " at \"\(name)" + problem.path.map {
                        switch $0 {
                        case .key(let key): "." + key
                        case .index(let index): "[\(index)]"
                        }
                    }.joined() + "\""
                }
                errors.append(GraphQLError(prefix + "; " + problem.message, locations: location))
            }
            if problems.isEmpty { coerced[name] = result }
            if errors.count >= 50 {
                errors.append(GraphQLError("Too many errors processing variables, error limit reached. Execution aborted."))
                break
            }
        }
        return errors.isEmpty ? .success(coerced) : .failure(VariableErrors(errors: errors))
    }
}

/// Thrown upward when a non-null field completed to null; the error was recorded
/// already and the nearest nullable parent becomes null (spec §6.4.4).
struct NullPropagation: Error {}

/// The state of one execution: its errors, variables and fragments.
final class Execution<Context> {
    let executable: ExecutableSchema<Context>
    let schema: GraphQLSchema
    let source: Source
    let operation: OperationDefinition
    let fragments: [String: FragmentDefinition]
    let variables: JSONObject
    let context: Context
    private(set) var errors: [GraphQLError] = []
    private let coercer: InputCoercer

    init(
        executable: ExecutableSchema<Context>, source: Source, operation: OperationDefinition,
        fragments: [String: FragmentDefinition], variables: JSONObject, context: Context
    ) {
        self.executable = executable
        self.schema = executable.schema
        self.source = source
        self.operation = operation
        self.fragments = fragments
        self.variables = variables
        self.context = context
        self.coercer = InputCoercer(schema: executable.schema)
    }

    private func locations(_ nodes: [Field]) -> [SourceLocation] {
        nodes.map { source.location(of: $0.span.start) }
    }

    // MARK: Selection sets

    /// ExecuteSelectionSet: the object's fields in request order.
    func executeSelectionSet(
        _ selectionSets: [SelectionSet], objectType: ObjectType, source: ResolvedValue, path: ResponsePath
    ) throws(NullPropagation) -> JSON {
        let grouped = groupedFields(selectionSets, objectType)
        var result = JSONObject()
        for (key, fields) in zip(grouped.keys, grouped.fields) {
            if let value = try executeField(objectType, source, fields, path: .key(path, key)) {
                result.appendUnchecked(key, value)
            }
        }
        return .object(result)
    }

    /// Response keys in first-seen order, each with its field nodes.
    /// CollectFields results of this execution by object type and selection sets (their
    /// source offsets): the same selections on the same type (list items, or a fragment
    /// such as introspection's `FullType` spread on every type) are collected once.
    /// `@skip`/`@include` depend only on the operation's variables, fixed for an execution.
    /// Synthetic selection sets (no source offsets) are not cached.
    private struct GroupKey: Hashable {
        let typeName: String
        let starts: [Int]
    }
    private var groupCache: [GroupKey: FieldGroups] = [:]

    private func groupedFields(_ selectionSets: [SelectionSet], _ objectType: ObjectType) -> FieldGroups {
        let cacheable = !selectionSets.contains { $0.span == .synthetic }
        let key = cacheable ? GroupKey(typeName: objectType.name, starts: selectionSets.map(\.span.start)) : nil
        if let key, let cached = groupCache[key] { return cached }
        var grouped = FieldGroups()
        var visited: Set<String> = []
        for selectionSet in selectionSets {
            collectFields(objectType, selectionSet, &grouped, &visited)
        }
        if let key { groupCache[key] = grouped }
        return grouped
    }

    struct FieldGroups {
        var keys: [String] = []
        var fields: [[Field]] = []
        var index: [String: Int] = [:]

        mutating func add(_ field: Field) {
            let key = field.responseKey
            if let i = index[key] {
                fields[i].append(field)
            } else {
                index[key] = keys.count
                keys.append(key)
                fields.append([field])
            }
        }
    }

    /// CollectFields (spec §6.3.2), with `@skip` and `@include`.
    private func collectFields(
        _ objectType: ObjectType, _ selectionSet: SelectionSet, _ groups: inout FieldGroups, _ visited: inout Set<String>
    ) {
        for selection in selectionSet.selections {
            guard shouldInclude(selection.directives) else { continue }
            switch selection {
            case .field(let field):
                groups.add(field)
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard !visited.contains(name), let fragment = fragments[name] else { continue }
                visited.insert(name)
                guard typeApplies(fragment.typeCondition.value, to: objectType) else { continue }
                collectFields(objectType, fragment.selectionSet, &groups, &visited)
            case .inlineFragment(let fragment):
                if let condition = fragment.typeCondition, !typeApplies(condition.value, to: objectType) { continue }
                collectFields(objectType, fragment.selectionSet, &groups, &visited)
            }
        }
    }

    /// DoesFragmentTypeApply (spec §6.3.2).
    private func typeApplies(_ typeName: String, to objectType: ObjectType) -> Bool {
        if typeName == objectType.name { return true }
        switch schema.type(typeName) {
        case .interface?: return objectType.interfaces.contains(typeName)
        case .union(let union)?: return union.types.contains(objectType.name)
        default: return false
        }
    }

    private func shouldInclude(_ directives: [Directive]) -> Bool {
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

    // MARK: Fields

    /// ExecuteField (spec §6.4): nil when the field is not defined on the type.
    private func executeField(
        _ objectType: ObjectType, _ source: ResolvedValue, _ fields: [Field], path: ResponsePath
    ) throws(NullPropagation) -> JSON? {
        let node = fields[0]
        let fieldName = node.name.value
        if fieldName == "__typename" { return .string(objectType.name) }
        let definition: FieldDef
        let resolver: FieldResolver<Context>?
        if let field = objectType.field(fieldName) {
            definition = field
            resolver = executable.table[objectType.name]?[fieldName]
        } else if objectType === schema.queryType, let meta = Introspection.metaField(fieldName) {
            definition = meta
            resolver = nil
        } else {
            return nil
        }
        let info = ResolveInfo(
            fieldName: fieldName, parentType: objectType, returnType: definition.type, responsePath: path,
            fieldNodes: fields, operation: operation, schema: schema, variables: variables)
        let resolved: ResolvedValue
        do {
            let arguments = try coerceArguments(definition, node)
            if let resolver {
                resolved = try resolver(source, arguments, context, info)
            } else if Prelude.introspectionTypeNames.contains(objectType.name) || objectType === schema.queryType {
                resolved = try Introspection.resolve(objectType.name, fieldName, source, arguments, schema)
            } else if case .json(.object(let object)) = source {
                resolved = object[fieldName].map(ResolvedValue.init) ?? .null
            } else {
                resolved = .null
            }
        } catch {
            return try fieldError(error, fields, path, type: definition.type)
        }
        do {
            return try completeValue(definition.type, fields, info, path, resolved)
        } catch is NullPropagation {
            if definition.type.isNonNull { throw NullPropagation() }
            return .null
        } catch {
            return try fieldError(error, fields, path, type: definition.type)
        }
    }

    /// Records a field error (spec §6.4.4) and returns null, or propagates when the
    /// field is non-null.
    private func fieldError(_ error: any Error, _ fields: [Field], _ path: ResponsePath, type: TypeRef) throws(NullPropagation) -> JSON {
        if error is NullPropagation {
            if type.isNonNull { throw NullPropagation() }
            return .null
        }
        var graphQLError = (error as? GraphQLError) ?? executable.mapError(error)
        if graphQLError.locations.isEmpty { graphQLError.locations = locations(fields) }
        if graphQLError.path == nil { graphQLError.path = path.elements }
        errors.append(graphQLError)
        if type.isNonNull { throw NullPropagation() }
        return .null
    }

    /// CoerceArgumentValues (spec §6.4.1) with graphql-js's messages.
    private func coerceArguments(_ definition: FieldDef, _ node: Field) throws(GraphQLError) -> JSONObject {
        var coerced = JSONObject()
        for argument in definition.arguments {
            let name = argument.name
            guard let argumentNode = node.arguments.first(where: { $0.name.value == name }) else {
                if let defaultValue = argument.defaultValue {
                    coerced.appendUnchecked(name, coercer.literal(defaultValue, type: argument.type, variables: [:]) ?? .null)
                } else if argument.type.isNonNull {
                    throw GraphQLError(
                        "Argument \"\(name)\" of required type \"\(argument.type)\" was not provided.",
                        locations: [source.location(of: node.span.start)])
                }
                continue
            }
            let valueNode = argumentNode.value
            var isNull = false
            if case .null = valueNode.kind { isNull = true }
            if case .variable(let variable) = valueNode.kind {
                guard let value = variables[variable] else {
                    if let defaultValue = argument.defaultValue {
                        coerced.appendUnchecked(name, coercer.literal(defaultValue, type: argument.type, variables: [:]) ?? .null)
                    } else if argument.type.isNonNull {
                        throw GraphQLError(
                            "Argument \"\(name)\" of required type \"\(argument.type)\" was provided the variable \"$\(variable)\" which was not provided a runtime value.",
                            locations: [source.location(of: valueNode.span.start)])
                    }
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

    /// CompleteValue (spec §6.4.3). Throws `GraphQLError` for this field's own
    /// problems and `NullPropagation` when a non-null descendant was null.
    private func completeValue(
        _ type: TypeRef, _ fields: [Field], _ info: ResolveInfo, _ path: ResponsePath, _ value: ResolvedValue
    ) throws -> JSON {
        if case .nonNull(let inner) = type {
            let completed = try completeValue(inner, fields, info, path, value)
            if case .null = completed {
                throw GraphQLError("Cannot return null for non-nullable field \(info.parentType.name).\(info.fieldName).")
            }
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
                throw GraphQLError("Expected Iterable, but did not find one for field \"\(info.parentType.name).\(info.fieldName)\".")
            }
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let itemPath = ResponsePath.index(path, index)
                do {
                    out.append(try completeValue(itemType, fields, info, itemPath, item))
                } catch {
                    out.append(try fieldError(error, fields, itemPath, type: itemType))
                }
            }
            return .array(out)
        case .named(let name):
            guard let named = schema.type(name) else {
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
                guard case .string(let string) = value.flattenedJSON, enumType.value(string) != nil else {
                    throw GraphQLError("Enum \"\(enumType.name)\" cannot represent value: \(value.inspected)")
                }
                return .string(string)
            case .object(let object):
                return try executeSelectionSet(subSelections(fields), objectType: object, source: value, path: path)
            case .interface, .union:
                let object = try resolveAbstractType(named, value, info)
                return try executeSelectionSet(subSelections(fields), objectType: object, source: value, path: path)
            case .inputObject:
                throw GraphQLError("Type \"\(name)\" is an input type and cannot be a field's type.")
            }
        }
    }

    private func subSelections(_ fields: [Field]) -> [SelectionSet] {
        fields.compactMap(\.selectionSet)
    }

    /// ResolveAbstractType: by the Swift type bound to an object type, or a JSON
    /// parent's `__typename`.
    private func resolveAbstractType(_ abstract: NamedType, _ value: ResolvedValue, _ info: ResolveInfo) throws -> ObjectType {
        let candidates = schema.possibleTypes(abstract.name)
        var resolvedName: String? = nil
        switch value {
        case .value(let swiftValue):
            resolvedName = candidates.first { executable.typeTests[$0.name]?(swiftValue) == true }?.name
        case .json(.object(let object)):
            if case .string(let name)? = object["__typename"] { resolvedName = name }
        default:
            break
        }
        guard let resolvedName else {
            throw GraphQLError(
                "Abstract type \"\(abstract.name)\" must resolve to an Object type at runtime for field \"\(info.parentType.name).\(info.fieldName)\". Either the \"\(abstract.name)\" type should provide a \"resolveType\" function or each possible type should provide an \"isTypeOf\" function.")
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

extension ResolvedValue {
    /// A JSON scalar inside `.json` unwrapped to its plain case, for enum completion.
    var flattenedJSON: JSON? {
        if case .json(let json) = self { return json }
        return plainJSON
    }
}
