import JSON

/// The request pipeline of a served schema: parse, validate and check limits (cached
/// by query text, so a repeated query skips all three), then execute.
public final class GraphQLService<Context>: Sendable {
    public let executable: ExecutableSchema<Context>
    public let parseOptions: ParseOptions
    public let limits: QueryLimits
    private let cache: DocumentCache<Result<Prepared, RequestErrors>>

    public typealias Prepared = PreparedDocument

    public init(
        executable: ExecutableSchema<Context>, parseOptions: ParseOptions = ParseOptions(),
        limits: QueryLimits = QueryLimits(), cacheCapacity: Int = 512
    ) {
        self.executable = executable
        self.parseOptions = parseOptions
        self.limits = limits
        self.cache = DocumentCache(capacity: cacheCapacity)
    }

    public var schema: GraphQLSchema { executable.schema }

    /// Parses and validates `query` (spec §6.1 steps before execution); the errors
    /// are request errors (no `data`).
    public func prepare(_ query: String) -> Result<Prepared, RequestErrors> {
        if let cached = cache.lookup(query) { return cached }
        let source = Source(query)
        let result: Result<Prepared, RequestErrors>
        do {
            let document = try parse(source, options: parseOptions)
            var errors = validate(schema: schema, document: document, source: source)
            if errors.isEmpty { errors = checkLimits(document, operationName: nil, limits: limits, source: source) }
            result = errors.isEmpty ? .success(prepared(source, document)) : .failure(RequestErrors(errors))
        } catch {
            result = .failure(RequestErrors([error]))
        }
        cache.store(query, result)
        return result
    }

    /// A valid document with what its executions share: selection plans, and where each
    /// operation may run.
    private func prepared(_ source: Source, _ document: Document) -> Prepared {
        var placements: [String?: ResolverPlacement] = [:]
        for case .operation(let operation) in document.definitions {
            placements[operation.name?.value] = executable.placement(of: operation, in: document)
        }
        return Prepared(source: source, document: document, plans: ExecutionPlans.make(for: document), placements: placements)
    }

    /// The operation `operationName` selects, for transports that must know its type
    /// before executing (GraphQL over HTTP refuses mutations over GET).
    public func operation(of prepared: Prepared, named operationName: String?) -> OperationDefinition? {
        var only: OperationDefinition? = nil
        var count = 0
        for case .operation(let operation) in prepared.document.definitions {
            if let operationName, operation.name?.value == operationName { return operation }
            count += 1
            only = operation
        }
        return operationName == nil && count == 1 ? only : nil
    }

    /// Executes a prepared document.
    public func execute(
        _ prepared: Prepared, operationName: String?, variables: JSONObject, context: Context
    ) -> ExecutionResult {
        executable.execute(
            document: prepared.document, source: prepared.source, operationName: operationName,
            variables: variables, context: context, plans: prepared.plans)
    }
}

/// A document that parsed, validated and passed the query limits. A class: the cache
/// hands out one reference rather than a copy of the document and its source.
public final class PreparedDocument: Sendable {
    public let source: Source
    public let document: Document
    /// Field collection results shared by the executions of this document, when they
    /// cannot depend on variables.
    let plans: ExecutionPlans?
    /// Where each operation may run, by name (a valid document has at most one without).
    private let placements: [String?: ResolverPlacement]

    init(source: Source, document: Document, plans: ExecutionPlans?, placements: [String?: ResolverPlacement]) {
        self.source = source
        self.document = document
        self.plans = plans
        self.placements = placements
    }

    /// Where `operation` of this document may run: the greatest ``ResolverPlacement`` of the
    /// fields it may execute (``ExecutableSchema/placement(of:in:)``).
    public func placement(of operation: OperationDefinition) -> ResolverPlacement {
        placements[operation.name?.value] ?? .blocking
    }
}

/// Errors that end a request before execution: syntax, validation and limit errors.
public struct RequestErrors: Error, Sendable {
    public let errors: [GraphQLError]
    public init(_ errors: [GraphQLError]) { self.errors = errors }
}
