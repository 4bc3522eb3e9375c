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
///
/// One walk: every operation and fragment definition is walked once (a fragment when
/// first spread, its depth then memoised), counting aliases on the way.
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
        var visited: [Bool] = []
        let rootFields = checker.rootFieldCount(operation.selectionSet, &visited)
        if rootFields > limits.maxRootFields {
            errors.append(
                GraphQLError(
                    "Query selects too many root fields: \(label()) selects \(rootFields) root fields; the maximum is \(limits.maxRootFields).",
                    locations: [source.location(of: operation.span.start)]))
        }
    }
    // The operations not selected and the fragments they alone spread still count for aliases.
    for case .operation(let operation) in document.definitions
    where operationName != nil && operation.name?.value != operationName {
        _ = checker.depth(of: operation.selectionSet)
    }
    checker.walkUnwalkedFragments()
    if checker.aliases > limits.maxAliases, let offset = firstAlias(overLimit: limits.maxAliases, in: document) {
        errors.append(
            GraphQLError(
                "Query uses too many aliases: the document has \(checker.aliases) aliases; the maximum is \(limits.maxAliases).",
                locations: [source.location(of: offset)]))
    }
    return errors
}

/// The offset of the alias after the first `limit` in document order (selection sets
/// of every definition, not following spreads), which the aliases error points at.
private func firstAlias(overLimit limit: Int, in document: Document) -> Int? {
    var seen = 0
    func find(_ selectionSet: SelectionSet) -> Int? {
        for position in selectionSet.selections.indices {
            switch selectionSet.selections[position] {
            case .field(let field):
                if let alias = field.alias {
                    if seen == limit { return alias.span.start }
                    seen += 1
                }
                if let inner = field.selectionSet, let offset = find(inner) { return offset }
            case .inlineFragment(let fragment):
                if let offset = find(fragment.selectionSet) { return offset }
            case .fragmentSpread:
                break
            }
        }
        return nil
    }
    for definition in document.definitions {
        let offset: Int?
        switch definition {
        case .operation(let operation): offset = find(operation.selectionSet)
        case .fragment(let fragment): offset = find(fragment.selectionSet)
        default: offset = nil
        }
        if let offset { return offset }
    }
    return nil
}

/// The measurements behind `checkLimits`. Each fragment definition is walked at most
/// once, when first spread (or at the end, for its aliases): its depth is memoised, so
/// fragments spreading each other many times are measured in linear time, and the
/// aliases of every selection set walked are counted on the way. Selections are visited
/// by index (a `for selection in` loop copies each one).
private struct LimitChecker {
    typealias Measure = (depth: Int, deepestField: Int)

    /// The fragment definitions, in document order, and their names.
    private let fragments: [FragmentDefinition]
    private let fragmentNames: [String]
    /// Fragment positions by name, for documents with many fragments (else a linear
    /// search is faster). The last definition of a name counts, as everywhere a
    /// document's fragments are looked up by name.
    private let fragmentTable: [String: Int]
    /// By fragment position: whether it was walked, or is being walked.
    private enum State {
        case unwalked, walking
        case walked(Measure)
    }
    private var states: [State]
    /// Aliases in the selection sets walked so far.
    private(set) var aliases = 0

    private static var linearLimit: Int { 8 }

    init(document: Document) {
        var fragments: [FragmentDefinition] = []
        for case .fragment(let fragment) in document.definitions { fragments.append(fragment) }
        self.fragments = fragments
        fragmentNames = fragments.map(\.name.value)
        var table: [String: Int] = [:]
        if fragments.count > Self.linearLimit {
            for (position, name) in fragmentNames.enumerated() { table[name] = position }
        }
        fragmentTable = table
        // `map` rather than `Array(repeating:count:)`, whose allocation is not specialized
        // and looks up the storage type's metadata on every call.
        states = fragments.map { _ in .unwalked }
    }

    /// The position of the fragment called `name`, if any.
    private func fragment(named name: String) -> Int? {
        if fragments.count > Self.linearLimit { return fragmentTable[name] }
        return fragmentNames.lastIndex(of: name)
    }

    /// The field depth of the fragment at `position` (0 while it is being walked: a
    /// cycle, invalid anyway, is not followed).
    private mutating func depth(ofFragment position: Int) -> Measure {
        switch states[position] {
        case .walked(let known): return known
        case .walking: return (0, 0)
        case .unwalked: break
        }
        states[position] = .walking
        let result = depth(of: fragments[position].selectionSet)
        states[position] = .walked(result)
        return result
    }

    /// Walks the fragments not walked yet, for their aliases.
    mutating func walkUnwalkedFragments() {
        for position in fragments.indices {
            if case .unwalked = states[position] { _ = depth(ofFragment: position) }
        }
    }

    /// The field depth of a selection set (0 when it selects no fields) and the offset of
    /// its deepest field.
    mutating func depth(of selectionSet: SelectionSet) -> Measure {
        var best = (depth: 0, deepestField: selectionSet.span.start)
        for position in selectionSet.selections.indices {
            let candidate: Measure
            switch selectionSet.selections[position] {
            case .field(let field):
                if field.alias != nil { aliases += 1 }
                if let inner = field.selectionSet {
                    let sub = depth(of: inner)
                    candidate = sub.depth == 0 ? (1, field.span.start) : (sub.depth + 1, sub.deepestField)
                } else {
                    candidate = (1, field.span.start)
                }
            case .inlineFragment(let fragment):
                candidate = depth(of: fragment.selectionSet)
            case .fragmentSpread(let spread):
                candidate = fragment(named: spread.name.value).map { depth(ofFragment: $0) } ?? (0, 0)
            }
            if candidate.depth > best.depth { best = candidate }
        }
        return best
    }

    /// The fields an operation selects at its root, through fragments (each fragment
    /// counted once: `visited`, by fragment position, is sized on the first spread).
    func rootFieldCount(_ selectionSet: SelectionSet, _ visited: inout [Bool]) -> Int {
        var count = 0
        for position in selectionSet.selections.indices {
            switch selectionSet.selections[position] {
            case .field: count += 1
            case .inlineFragment(let fragment): count += rootFieldCount(fragment.selectionSet, &visited)
            case .fragmentSpread(let spread):
                guard let fragment = fragment(named: spread.name.value) else { continue }
                if visited.isEmpty { visited = fragments.map { _ in false } }
                guard !visited[fragment] else { continue }
                visited[fragment] = true
                count += rootFieldCount(fragments[fragment].selectionSet, &visited)
            }
        }
        return count
    }
}
