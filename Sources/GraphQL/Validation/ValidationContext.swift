/// Where a variable is used, with the input type and default value expected there.
struct VariableUsage {
    /// The variable's name, without the `$`.
    let name: String
    /// The variable value node (its span starts at the `$`).
    let node: Value
    let type: TypeRef?
    /// The default value of the argument or input field the variable is passed to.
    let defaultValue: Value?
}

/// What every rule of one validation shares: the schema and document, the errors so
/// far (and the limit on them), the current type information, and cached facts about
/// fragments and variable usages.
struct ValidationContext {
    let schema: GraphQLSchema
    let document: Document
    let source: Source
    let maxErrors: Int
    /// The type information of the main walk, current when a rule is called.
    var typeInfo: TypeInfo
    private(set) var errors: [GraphQLError] = []
    /// Set once the error limit is reached; nothing more is reported.
    private(set) var isAborted = false

    /// Fragment definitions by name (the last of equally named ones, as graphql-js).
    let fragments: FragmentTable
    private var fragmentUsages: [String: [VariableUsage]] = [:]
    /// The fragments and variable usages of the operation last asked about, with where it
    /// starts in the source: the rules ask about an operation one after another on
    /// leaving it. Operations built in code, with empty synthetic spans, are not cached.
    private var operationCache: (start: Int, fragments: [FragmentDefinition], usages: [VariableUsage]?)? = nil

    init(schema: GraphQLSchema, document: Document, source: Source, maxErrors: Int) {
        self.schema = schema
        self.document = document
        self.source = source
        self.maxErrors = maxErrors
        self.typeInfo = TypeInfo(schema: schema)
        self.fragments = FragmentTable(document)
        self.mayUseVariables = Self.mayUseVariables(document, source)
    }

    /// False when the document cannot use a variable: it was parsed from `source` (its
    /// span lies in it) and its text has no `$`. Then every variable usage list is
    /// empty, and the walks that would collect them are skipped.
    let mayUseVariables: Bool

    private static func mayUseVariables(_ document: Document, _ source: Source) -> Bool {
        let span = document.span
        guard span.start >= 0, span.end > span.start, span.end <= source.bytes.count else { return true }
        return source.bytes.withUnsafeBytes { containsDollar(UnsafeRawBufferPointer(rebasing: $0[span.start..<span.end])) }
    }

    /// Whether `bytes` contain a `$`, tested eight bytes at a time: XOR with `$$$$$$$$`
    /// turns each `$` into a zero byte, which `(x - 0x01…) & ~x & 0x80…` detects.
    private static func containsDollar(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let dollars = ones &* UInt64(UInt8(ascii: "$"))
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ dollars
            if (word &- ones) & ~word & (ones &* 0x80) != 0 { return true }
            offset += 8
        }
        return bytes[offset...].contains(UInt8(ascii: "$"))
    }

    /// Records an error at the given byte offsets. At the limit, adds the final
    /// "Too many validation errors" error and stops the validation, as graphql-js does.
    mutating func report(_ message: String, at offsets: [Int]) {
        if isAborted { return }
        if errors.count >= maxErrors {
            errors.append(GraphQLError("Too many validation errors, error limit reached. Validation aborted."))
            isAborted = true
            return
        }
        errors.append(GraphQLError(message, locations: offsets.map { source.location(of: $0) }))
    }

    mutating func report(_ message: String, at offset: Int) { report(message, at: [offset]) }

    /// The byte offset of the `$` of a variable definition (its span may start at a description).
    func dollarOffset(_ definition: VariableDefinition) -> Int {
        if definition.description == nil { return definition.span.start }
        var index = definition.variable.span.start - 1
        while index > 0, index < source.bytes.count, source.bytes[index] != UInt8(ascii: "$") { index -= 1 }
        return max(index, 0)
    }

    // MARK: Fragments and variable usages

    /// A fragment spread as the fragment rules use it: the fragment's name and where the
    /// spread starts (copying the whole spread would retain its directives too).
    struct SpreadReference {
        let name: String
        let start: Int
    }

    /// The fragment spreads in a selection set, not following fragments, in graphql-js's order.
    func fragmentSpreads(_ selectionSet: SelectionSet) -> [SpreadReference] {
        var spreads: [SpreadReference] = []
        var setsToVisit = [selectionSet.selections]
        while let selections = setsToVisit.popLast() {
            // By index: iterating copies each selection (retaining all it holds).
            for index in selections.indices {
                switch selections[index] {
                case .fragmentSpread(let spread):
                    spreads.append(SpreadReference(name: spread.name.value, start: spread.span.start))
                case .field(let field):
                    if let inner = field.selectionSet { setsToVisit.append(inner.selections) }
                case .inlineFragment(let fragment):
                    setsToVisit.append(fragment.selectionSet.selections)
                }
            }
        }
        return spreads
    }

    /// The known fragments an operation uses, directly or through other fragments.
    mutating func recursivelyReferencedFragments(_ operation: OperationDefinition) -> [FragmentDefinition] {
        if fragments.isEmpty { return [] }  // no known fragment can be referenced
        let key = operation.span.start
        let isParsed = operation.span.end > operation.span.start
        if isParsed, let cached = operationCache, cached.start == key { return cached.fragments }
        var result: [FragmentDefinition] = []
        var collected: Set<String> = []
        var setsToVisit = [operation.selectionSet]
        while let set = setsToVisit.popLast() {
            for spread in fragmentSpreads(set) where !collected.contains(spread.name) {
                collected.insert(spread.name)
                if let fragment = fragments[spread.name] {
                    result.append(fragment)
                    setsToVisit.append(fragment.selectionSet)
                }
            }
        }
        if isParsed { operationCache = (key, result, nil) }
        return result
    }

    /// The variables used in a fragment definition, with their expected types.
    mutating func variableUsages(_ fragment: FragmentDefinition) -> [VariableUsage] {
        if let cached = fragmentUsages[fragment.name.value] { return cached }
        guard VariableScan.uses(fragment.directives) || VariableScan.uses(fragment.selectionSet) else {
            fragmentUsages[fragment.name.value] = []
            return []
        }
        var walker = TypedWalker(visitor: VariableUsageCollector(schema: schema))
        walker.walk(fragment)
        fragmentUsages[fragment.name.value] = walker.visitor.usages
        return walker.visitor.usages
    }

    /// The variable usages the main walk found in the operation it just left (keyed by
    /// its start), so that `recursiveVariableUsages` need not walk it again.
    private var walked: (start: Int, usages: [VariableUsage])? = nil

    /// Called by the main walk on leaving an operation, before the rules leave it.
    mutating func walkedOperation(_ operation: OperationDefinition, usages: [VariableUsage]) {
        walked = operation.span.end > operation.span.start ? (operation.span.start, usages) : nil
    }

    /// The variables used by an operation and every fragment it references.
    mutating func recursiveVariableUsages(_ operation: OperationDefinition) -> [VariableUsage] {
        if !mayUseVariables { return [] }
        let fragments = recursivelyReferencedFragments(operation)
        let key = operation.span.start
        let isParsed = operation.span.end > operation.span.start
        if isParsed, let cached = operationCache, cached.start == key, let usages = cached.usages { return usages }
        var usages: [VariableUsage] = []
        if isParsed, let walked, walked.start == key {
            usages = walked.usages
        } else if VariableScan.uses(operation.directives) || VariableScan.uses(operation.selectionSet) {
            var walker = TypedWalker(visitor: VariableUsageCollector(schema: schema))
            walker.walk(operation)
            usages = walker.visitor.usages
        }
        for fragment in fragments { usages += variableUsages(fragment) }
        if isParsed { operationCache = (key, fragments, usages) }
        return usages
    }
}

/// Whether part of a document uses a variable, without type information: when
/// nothing does, the typed usage walk is skipped.
enum VariableScan {
    static func uses(_ selectionSet: SelectionSet) -> Bool {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                if field.arguments.contains(where: { uses($0.value) }) || uses(field.directives) { return true }
                if let set = field.selectionSet, uses(set) { return true }
            case .fragmentSpread(let spread):
                if uses(spread.directives) { return true }
            case .inlineFragment(let fragment):
                if uses(fragment.directives) || uses(fragment.selectionSet) { return true }
            }
        }
        return false
    }

    static func uses(_ directives: [Directive]) -> Bool {
        directives.contains { $0.arguments.contains { uses($0.value) } }
    }

    static func uses(_ value: Value) -> Bool {
        switch value.kind {
        case .variable: true
        case .list(let items): items.contains { uses($0) }
        case .object(let fields): fields.contains { uses($0.value) }
        default: false
        }
    }
}

/// Collects variable usages in visiting order, skipping variable definitions (their
/// default values are constants).
private struct VariableUsageCollector: TypedVisitor {
    var typeInfo: TypeInfo
    var usages: [VariableUsage] = []
    var isStopped: Bool { false }

    init(schema: GraphQLSchema) { self.typeInfo = TypeInfo(schema: schema) }

    mutating func enterTypeInfo(_ node: VisitNode) { typeInfo.enter(node) }
    mutating func leaveTypeInfo(_ node: VisitNode) { typeInfo.leave(node) }

    mutating func enter(_ node: VisitNode) -> Bool {
        switch node {
        case .variableDefinition: return false
        case .value(let value):
            if case .variable(let name) = value.kind {
                usages.append(VariableUsage(name: name, node: value, type: typeInfo.inputType, defaultValue: typeInfo.defaultValue))
            }
            return true
        default: return true
        }
    }

    mutating func leave(_ node: VisitNode) {}
}
