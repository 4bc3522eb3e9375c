import JSON
import Threading

/// The fields a selection (one or more selection sets, merged) collects on one object
/// type (spec §6.3.2 CollectFields), each with what executing it needs: definition,
/// how it resolves, its sub-selections. Built once per (object type, selection) and
/// reused for every object of that type the selection is executed on: list items
/// within an execution and, for a prepared document, every later execution.
///
/// A plan is immutable except for its fields' child plans, which are published (without
/// a lock, so concurrent executions of one document never queue) the first time a value
/// of each object type completes there.
final class SelectionPlan: Sendable {
    let objectType: ObjectType
    /// The response keys in request order; fields the type does not define are left out
    /// (ExecuteField yields nothing for them).
    let fields: [FieldPlan]
    /// The response keys of `fields`, in order: the keys of every object completed with
    /// the plan.
    let responseKeys: [String]
    /// Whether the object type's fields without a resolver resolve by introspection
    /// (introspection types and the query root's meta-fields).
    let introspective: Bool
    /// Whether the object type's name starts with `__` (an introspection type rather
    /// than the query root, for `Introspection.resolve`).
    let isIntrospectionType: Bool

    init(
        objectType: ObjectType, fields: [FieldPlan], responseKeys: [String], introspective: Bool,
        isIntrospectionType: Bool
    ) {
        self.objectType = objectType
        self.fields = fields
        self.responseKeys = responseKeys
        self.introspective = introspective
        self.isIntrospectionType = isIntrospectionType
    }
}

/// One response key of a `SelectionPlan`: its merged field nodes and definition.
final class FieldPlan: Sendable {
    /// How a field's value completes.
    enum Completion: Sendable {
        /// A scalar, nullable or not (no list): completed without descending its type,
        /// the built-in scalars' common values without calling their coercion.
        case scalar(ScalarType, BuiltInScalar?)
        /// An enum, nullable or not (no list): the value's name, checked against the enum's.
        case enumeration(EnumType)
        /// An object type, nullable or not (no list): the sub-selection executed on the value.
        case object(ObjectType)
        /// Anything else (lists, abstract and unknown types): `completeValue`.
        case general
    }

    /// How the field gets its value.
    enum Kind: Sendable {
        /// `__typename`: the object type's name.
        case typename
        /// A field of the object type.
        case field
        /// `__schema` or `__type` on the query root.
        case meta
    }

    /// The field's first node in the document.
    let node: Field
    /// The nodes merged into the first under its response key (usually none).
    let mergedNodes: [Field]
    let kind: Kind
    /// The resolver bound to the field, if any (the plan is built for one `Executor`).
    let resolver: ResolverTable.Resolver?
    let parentType: ObjectType
    /// The definition's type (`Introspection.typenameField`'s for `__typename`).
    let type: TypeRef
    /// The definition's arguments: kept rather than the whole `FieldDef`, whose names
    /// and descriptions execution never reads (fewer references to retain and release
    /// per plan).
    let arguments: [InputValueDef]
    /// The named type of `type`, resolved in the schema (nil if unknown).
    let namedType: NamedType?
    var responseKey: String { node.responseKey }
    var fieldName: String { node.name.value }
    /// The field's nodes: the first, then the merged ones.
    var nodes: [Field] { mergedNodes.isEmpty ? [node] : [node] + mergedNodes }
    /// The sub-selection sets of `nodes`, for object and abstract return types.
    var subSelections: [SelectionSet] { nodes.compactMap(\.selectionSet) }
    /// How the field's value completes (spec §6.4.3), decided once from its type.
    let completion: Completion
    /// The field as introspection names it (for fields that introspection resolves).
    let introspectionName: Introspection.FieldName
    /// The coerced arguments, when they are all literals (or absent) and so the same on
    /// every execution; nil when an argument is a variable.
    let constantArguments: Result<JSONObject, GraphQLError>?
    /// The first child plan built: a field completes as one object type nearly always, so
    /// most fields need no list. Keyed by the plan's own `objectType`.
    private let firstChild = PublishedOnce<SelectionPlan>()
    /// Child plans of other object types (abstract return types), by object type, in a list
    /// created the first time one is needed.
    private let otherChildren = PublishedOnce<Children>()

    init(
        node: Field, mergedNodes: [Field], kind: Kind, resolver: ResolverTable.Resolver?, parentType: ObjectType,
        type: TypeRef, arguments: [InputValueDef], namedType: NamedType?,
        constantArguments: Result<JSONObject, GraphQLError>?, introspective: Bool
    ) {
        // Derived values first, so that each parameter's last use is its store (a use
        // after the store would copy it).
        self.introspectionName = introspective ? Introspection.FieldName(node.name.value) : .other
        switch (type.nullable, namedType) {
        case (.named, .scalar(let scalar)?): self.completion = .scalar(scalar, BuiltInScalar(scalar))
        case (.named, .enumType(let enumType)?): self.completion = .enumeration(enumType)
        case (.named, .object(let object)?): self.completion = .object(object)
        default: self.completion = .general
        }
        self.node = node
        self.mergedNodes = mergedNodes
        self.kind = kind
        self.resolver = resolver
        self.parentType = parentType
        self.type = type
        self.arguments = arguments
        self.namedType = namedType
        self.constantArguments = constantArguments
    }

    private typealias Children = PublishedList<ObjectIdentifier, SelectionPlan>

    /// The plan of the sub-selections on `objectType`, built by `build` the first time.
    /// Published without a lock: when two executions race, both may build, and both get
    /// the plan published first.
    func child(_ objectType: ObjectType, build: (ObjectType) -> SelectionPlan) -> SelectionPlan {
        let first = firstChild.load() ?? firstChild.storeIfNil(build(objectType))
        if first.objectType === objectType { return first }
        let others = otherChildren.load() ?? otherChildren.storeIfNil(Children())
        return others.value(for: ObjectIdentifier(objectType)) { build(objectType) }
    }
}

/// An operation of a document with what executing it derives from the operation alone:
/// made once per prepared document (and for each execution of a document that is not),
/// so that an execution refers to its operation instead of copying it.
final class PreparedOperation: Sendable {
    let definition: OperationDefinition
    /// The type of each of its variable definitions, in order.
    let variableTypes: [TypeRef]

    init(_ definition: OperationDefinition) {
        self.variableTypes = definition.variableDefinitions.map { TypeRef($0.type) }
        self.definition = definition
    }

    /// The operations of `document`, in order.
    static func all(in document: Document) -> [PreparedOperation] {
        document.definitions.compactMap {
            if case .operation(let operation) = $0 { PreparedOperation(operation) } else { nil }
        }
    }
}

/// The root selection plans of a prepared document, shared by its executions, its
/// operations and its fragments by name. Only documents whose `@skip`/`@include` conditions are all literals
/// have one: otherwise field collection depends on the variables of each execution.
final class ExecutionPlans: Sendable {
    /// An operation (by its start in the source) executed by an executor: plans hold
    /// the executor's resolvers. The key keeps the executor, so its identity is not reused.
    private struct Key: Equatable, Sendable {
        let operation: Int
        let executor: Executor

        static func == (left: Key, right: Key) -> Bool {
            left.operation == right.operation && left.executor === right.executor
        }
    }
    private let roots = PublishedList<Key, SelectionPlan>()
    /// Results of operations that only introspect, by operation and executor.
    private let introspectionResults = PublishedList<Key, ExecutionResult>()
    /// The document's operations, in order.
    let operations: [PreparedOperation]
    /// The document's fragments by name (the first of a name, as validation allows one).
    let fragments: [String: FragmentDefinition]

    private init(operations: [PreparedOperation], fragments: [String: FragmentDefinition]) {
        self.operations = operations
        self.fragments = fragments
    }

    /// The result of the introspection-only operation starting at `operationStart`, from
    /// `execute` the first time. Such an operation declares no variables and reaches only
    /// built-in resolvers, so its result depends on the schema alone.
    func introspectionResult(
        operationStart: Int, executor: Executor, execute: () -> ExecutionResult
    ) -> ExecutionResult {
        introspectionResults.value(for: Key(operation: operationStart, executor: executor), orInsert: execute)
    }

    /// The root plan of the operation starting at `operationStart` when `executor` runs
    /// it, built by `build` the first time.
    func root(operationStart: Int, executor: Executor, build: () -> SelectionPlan) -> SelectionPlan {
        roots.value(for: Key(operation: operationStart, executor: executor), orInsert: build)
    }

    /// Plans for `document`, or nil when a `@skip`/`@include` condition is a variable
    /// (or a node has no source position to key its operation by).
    static func make(for document: Document) -> ExecutionPlans? {
        for definition in document.definitions {
            switch definition {
            case .operation(let operation):
                if operation.span.isSynthetic || hasVariableCondition(operation.selectionSet) { return nil }
            case .fragment(let fragment):
                if hasVariableCondition(fragment.selectionSet) { return nil }
            default:
                break
            }
        }
        return ExecutionPlans(operations: PreparedOperation.all(in: document), fragments: fragments(of: document))
    }

    /// The fragments of `document` by name; of two with one name (an invalid document
    /// executed directly), the first.
    static func fragments(of document: Document) -> [String: FragmentDefinition] {
        var fragments: [String: FragmentDefinition] = [:]
        for case .fragment(let fragment) in document.definitions where fragments[fragment.name.value] == nil {
            fragments[fragment.name.value] = fragment
        }
        return fragments
    }

    private static func hasVariableCondition(_ selectionSet: SelectionSet) -> Bool {
        for selection in selectionSet.selections {
            for directive in selection.directives where directive.name.value == "skip" || directive.name.value == "include" {
                for argument in directive.arguments {
                    if case .variable = argument.value.kind { return true }
                }
            }
            switch selection {
            case .field(let field):
                if let set = field.selectionSet, hasVariableCondition(set) { return true }
            case .inlineFragment(let fragment):
                if hasVariableCondition(fragment.selectionSet) { return true }
            case .fragmentSpread:
                break
            }
        }
        return false
    }
}
