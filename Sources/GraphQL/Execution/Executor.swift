import JSON

/// What an `ExecutableSchema` executes with, its context type erased: the schema, the
/// resolvers and what is derived from them once.
final class Executor: Sendable {
    let schema: GraphQLSchema
    let resolvers: ResolverTable
    /// Each object type's fields as planning a selection finds them: one lookup per
    /// plan, then one FNV lookup per field (rather than hashing the field's name and
    /// its type's name with SipHash).
    private let objectFields: [ObjectIdentifier: ObjectFields]
    /// Whether no resolver is bound to an introspection type's field, so that
    /// introspection results depend on the schema alone.
    let introspectionIsBuiltIn: Bool
    /// What introspection answers with, derived once; nil when resolvers are bound to
    /// introspection types (they then resolve field by field).
    let introspectionModel: IntrospectionModel?
    let typeTests: [String: @Sendable (any Sendable) -> Bool]
    /// Turns an error a resolver threw (that is not a `GraphQLError`) into the error
    /// the client sees.
    let mapError: @Sendable (any Error) -> GraphQLError

    init(
        schema: GraphQLSchema, resolvers: ResolverTable, typeTests: [String: @Sendable (any Sendable) -> Bool],
        mapError: @escaping @Sendable (any Error) -> GraphQLError
    ) {
        self.schema = schema
        self.resolvers = resolvers
        var objectFields: [ObjectIdentifier: ObjectFields] = [:]
        for type in schema.types {
            guard case .object(let object) = type else { continue }
            objectFields[ObjectIdentifier(object)] = ObjectFields(object, schema: schema, resolvers: resolvers)
        }
        self.objectFields = objectFields
        self.introspectionIsBuiltIn = !resolvers.bindsIntrospectionTypes
        self.introspectionModel = introspectionIsBuiltIn ? IntrospectionModel(schema) : nil
        self.typeTests = typeTests
        self.mapError = mapError
    }

    /// The fields of `object` (nil for a type not in the schema).
    func fields(of object: ObjectType) -> ObjectFields? {
        objectFields[ObjectIdentifier(object)]
    }

    /// ExecuteRequest (spec §6) with `context` pointing to the request's context, of the
    /// type the resolvers were bound for; `plans` are a prepared document's, if any.
    func execute(
        document: Document, source: Source, operationName: String?, variables: JSONObject,
        context: UnsafeRawPointer, plans: ExecutionPlans?
    ) -> ExecutionResult {
        let prepared: PreparedOperation
        do throws(GraphQLError) {
            prepared = try selectOperation(plans?.operations ?? PreparedOperation.all(in: document), operationName)
        } catch {
            return ExecutionResult(data: nil, errors: [error])
        }
        let coercion = coerceVariables(prepared, variables, source)
        guard case .success(let coercedVariables) = coercion else {
            if case .failure(let errors) = coercion { return ExecutionResult(data: nil, errors: errors.errors) }
            return ExecutionResult(data: nil)
        }
        guard let rootType = schema.rootType(prepared.definition.operation) else {
            let error = GraphQLError(
                "Schema is not configured to execute \(prepared.definition.operation.rawValue) operation.",
                locations: [source.location(of: prepared.definition.span.start)])
            return ExecutionResult(data: .null, errors: [error])
        }
        let execution = Execution(
            executor: self, source: source,
            request: ExecutionRequest(operation: prepared, variables: coercedVariables, schema: schema),
            fragments: plans?.fragments ?? ExecutionPlans.fragments(of: document), context: context)
        let rootPlan = execution.rootPlan(rootType, plans: plans)
        // An operation that only introspects (no variables, no resolvers of ours) has the
        // same result every time: a prepared document keeps it.
        if let plans, introspectionIsBuiltIn, prepared.variableTypes.isEmpty,
            rootPlan.fields.allSatisfy({ if case .field = $0.kind { false } else { true } })
        {
            return plans.introspectionResult(operationStart: prepared.definition.span.start, executor: self) {
                execution.run(rootPlan)
            }
        }
        return execution.run(rootPlan)
    }

    /// GetOperation (spec §6.1) among a document's `operations`.
    private func selectOperation(_ operations: [PreparedOperation], _ name: String?) throws(GraphQLError) -> PreparedOperation {
        guard let name else {
            guard let only = operations.first else { throw GraphQLError("Must provide an operation.") }
            guard operations.count == 1 else {
                throw GraphQLError("Must provide operation name if query contains multiple operations.")
            }
            return only
        }
        guard let named = operations.first(where: { $0.definition.name?.value == name }) else {
            throw GraphQLError("Unknown operation named \"\(name)\".")
        }
        return named
    }

    /// An object type's fields by name, with what each resolves to in the schema (a
    /// class: a plan reads it through one reference).
    final class ObjectFields: Sendable {
        /// The field names; a name's number indexes `positions`.
        private let names: NameTable
        /// The position in the type's `fields` of each name's (first) field.
        private let positions: [Int]
        /// The named type of each field by position (nil if unknown).
        let types: [NamedType?]
        /// The resolver of each field by position (nil when the type has none bound).
        let resolvers: [ResolverTable.Resolver?]?

        init(_ object: ObjectType, schema: GraphQLSchema, resolvers: ResolverTable) {
            var names = NameTable()
            var positions: [Int] = []
            for (position, field) in object.fields.enumerated() where names.insert(field.name).inserted {
                positions.append(position)
            }
            self.names = names
            self.positions = positions
            self.types = object.fields.map { schema.type($0.type.namedType) }
            self.resolvers = resolvers.resolvers(of: object)
        }

        /// The position of the field named `name` in the type's `fields`.
        func position(of name: String) -> Int? {
            names.number(of: name).map { positions[$0] }
        }
    }

    private struct VariableErrors: Error { var errors: [GraphQLError] }

    /// CoerceVariableValues (spec §6.1.2), reporting problems as graphql-js does: at most 50,
    /// then one "Too many errors" error in place of the 51st and no more (a single variable
    /// can hold thousands of problems, each quoting its value).
    private func coerceVariables(
        _ operation: PreparedOperation, _ values: JSONObject, _ source: Source
    ) -> Result<JSONObject, VariableErrors> {
        // Most operations declare no variables: nothing to coerce, nothing shared to touch.
        if operation.variableTypes.isEmpty { return .success(JSONObject()) }
        let coercer = InputCoercer(schema: schema)
        var coerced = JSONObject()
        var errors: [GraphQLError] = []
        /// Records `error`; false once the limit is reached (and the last error says so).
        func report(_ error: GraphQLError) -> Bool {
            guard errors.count < 50 else {
                errors.append(GraphQLError("Too many errors processing variables, error limit reached. Execution aborted."))
                return false
            }
            errors.append(error)
            return true
        }
        variables: for (definition, type) in zip(operation.definition.variableDefinitions, operation.variableTypes) {
            let name = definition.variable.value
            // Line and column only for an error: finding them scans the source.
            var location: [SourceLocation] { [source.location(of: definition.span.start)] }
            guard let named = schema.namedType(type), named.isInputType else {
                guard report(GraphQLError(
                    "Variable \"$\(name)\" expected value of type \"\(type)\" which cannot be used as an input type.",
                    locations: location)) else { break }
                continue
            }
            guard let value = values[name] else {
                if let defaultValue = definition.defaultValue {
                    if let value = coercer.literal(defaultValue, type: type, variables: [:]) { coerced[name] = value }
                } else if type.isNonNull {
                    guard report(GraphQLError(
                        "Variable \"$\(name)\" of required type \"\(type)\" was not provided.", locations: location)) else { break }
                }
                continue
            }
            if case .null = value, type.isNonNull {
                guard report(GraphQLError(
                    "Variable \"$\(name)\" of non-null type \"\(type)\" must not be null.", locations: location)) else { break }
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
                guard report(GraphQLError(prefix + "; " + problem.message, locations: location)) else { break variables }
            }
            if problems.isEmpty { coerced[name] = result }
        }
        return errors.isEmpty ? .success(coerced) : .failure(VariableErrors(errors: errors))
    }
}

