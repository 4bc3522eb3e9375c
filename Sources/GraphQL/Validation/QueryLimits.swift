/// Limits on the shape of an executable document, checked before execution to
/// bound the work a single request can ask for. These are not spec rules (spec §5
/// puts no limits on depth or breadth); each limit is configurable.
public struct QueryLimits: Sendable, Hashable {
    /// The deepest field nesting an operation may have; root fields are at depth 1.
    /// Counted through fragment spreads and inline fragments.
    public var maxDepth: Int
    /// The most aliased fields a document may contain (counted once per definition).
    public var maxAliases: Int
    /// The most root fields an operation may select, through fragments.
    public var maxRootFields: Int

    /// Limits that admit the standard introspection query (about 15 deep, no aliases).
    public init(maxDepth: Int = 20, maxAliases: Int = 50, maxRootFields: Int = 20) {
        self.maxDepth = maxDepth
        self.maxAliases = maxAliases
        self.maxRootFields = maxRootFields
    }
}

/// Checks `document` against `limits`: the depth and root fields of the operation
/// named `operationName` (every operation when nil) and the aliases of the whole
/// document. Returns one error per exceeded limit; empty when within limits.
/// Safe on invalid documents: unknown fragments are ignored and fragment cycles are
/// not followed.
public func checkLimits(
    _ document: Document, operationName: String?, limits: QueryLimits = QueryLimits(), source: Source
) -> [GraphQLError] {
    var checker = LimitChecker(document: document)
    var errors: [GraphQLError] = []
    for case .operation(let operation) in document.definitions
    where operationName == nil || operation.name?.value == operationName {
        // Built only for an error: this runs on every uncached request.
        func label() -> String { operation.name.map { "operation \"\($0.value)\"" } ?? "the anonymous operation" }
        let depth = checker.depth(of: operation.selectionSet)
        if depth.depth > limits.maxDepth {
            errors.append(
                GraphQLError(
                    "Query is too deep: \(label()) nests fields \(depth.depth) levels deep; the maximum depth is \(limits.maxDepth).",
                    locations: [source.location(of: depth.deepestField)]))
        }
        var visited: Set<String> = []
        let rootFields = checker.rootFieldCount(operation.selectionSet, &visited)
        if rootFields > limits.maxRootFields {
            errors.append(
                GraphQLError(
                    "Query selects too many root fields: \(label()) selects \(rootFields) root fields; the maximum is \(limits.maxRootFields).",
                    locations: [source.location(of: operation.span.start)]))
        }
    }
    var aliases = AliasCount(limit: limits.maxAliases)
    for definition in document.definitions {
        switch definition {
        case .operation(let operation): aliases.add(operation.selectionSet)
        case .fragment(let fragment): aliases.add(fragment.selectionSet)
        default: break
        }
    }
    if aliases.count > limits.maxAliases, let offset = aliases.firstOverLimit {
        errors.append(
            GraphQLError(
                "Query uses too many aliases: the document has \(aliases.count) aliases; the maximum is \(limits.maxAliases).",
                locations: [source.location(of: offset)]))
    }
    return errors
}

/// Counts the aliases of selection sets in document order (not following spreads),
/// keeping only the offset of the first alias over the limit, which the error points at.
private struct AliasCount {
    let limit: Int
    private(set) var count = 0
    private(set) var firstOverLimit: Int? = nil

    init(limit: Int) { self.limit = limit }

    mutating func add(_ selectionSet: SelectionSet) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                if let alias = field.alias {
                    if count == limit { firstOverLimit = alias.span.start }
                    count += 1
                }
                if let inner = field.selectionSet { add(inner) }
            case .inlineFragment(let fragment): add(fragment.selectionSet)
            case .fragmentSpread: break
            }
        }
    }
}

/// The measurements behind `checkLimits`, with each fragment's depth memoised so that
/// fragments spreading each other many times are measured in linear time.
private struct LimitChecker {
    let document: Document
    private var fragments: [String: FragmentDefinition] = [:]
    /// Depth of each fragment's selection set, and the offset of its deepest field.
    private var fragmentDepths: [String: (depth: Int, deepestField: Int)] = [:]
    private var inProgress: Set<String> = []

    init(document: Document) {
        self.document = document
        for case .fragment(let fragment) in document.definitions { fragments[fragment.name.value] = fragment }
    }

    /// The field depth of a selection set (0 when it selects no fields).
    mutating func depth(of selectionSet: SelectionSet) -> (depth: Int, deepestField: Int) {
        var best = (depth: 0, deepestField: selectionSet.span.start)
        for selection in selectionSet.selections {
            let candidate: (depth: Int, deepestField: Int)
            switch selection {
            case .field(let field):
                if let inner = field.selectionSet {
                    let sub = depth(of: inner)
                    candidate = sub.depth == 0 ? (1, field.span.start) : (sub.depth + 1, sub.deepestField)
                } else {
                    candidate = (1, field.span.start)
                }
            case .inlineFragment(let fragment):
                candidate = depth(of: fragment.selectionSet)
            case .fragmentSpread(let spread):
                candidate = fragmentDepth(spread.name.value)
            }
            if candidate.depth > best.depth { best = candidate }
        }
        return best
    }

    private mutating func fragmentDepth(_ name: String) -> (depth: Int, deepestField: Int) {
        if let known = fragmentDepths[name] { return known }
        // A spread back into a fragment being measured is a cycle (invalid anyway): not followed.
        guard let fragment = fragments[name], !inProgress.contains(name) else { return (0, 0) }
        inProgress.insert(name)
        let result = depth(of: fragment.selectionSet)
        inProgress.remove(name)
        fragmentDepths[name] = result
        return result
    }

    /// The fields an operation selects at its root, through fragments (each fragment counted once).
    func rootFieldCount(_ selectionSet: SelectionSet, _ visited: inout Set<String>) -> Int {
        var count = 0
        for selection in selectionSet.selections {
            switch selection {
            case .field: count += 1
            case .inlineFragment(let fragment): count += rootFieldCount(fragment.selectionSet, &visited)
            case .fragmentSpread(let spread):
                guard visited.insert(spread.name.value).inserted, let fragment = fragments[spread.name.value] else { continue }
                count += rootFieldCount(fragment.selectionSet, &visited)
            }
        }
        return count
    }
}
