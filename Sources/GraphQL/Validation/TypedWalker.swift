/// A node of an executable document as the validation walk visits it.
enum VisitNode {
    case document(Document)
    case operation(OperationDefinition)
    case variableDefinition(VariableDefinition)
    case selectionSet(SelectionSet)
    case field(Field)
    case fragmentSpread(FragmentSpread)
    case inlineFragment(InlineFragment)
    case fragmentDefinition(FragmentDefinition)
    /// A directive and the location it is used at.
    case directive(Directive, DirectiveLocation)
    case argument(Argument)
    /// Any value literal; list items and object fields are visited inside it.
    case value(Value)
    case objectField(ObjectField)
    /// A named type: in a variable's type or a type condition.
    case namedType(Name)
}

/// Something a `TypedWalker` calls at every node, with type information current.
protocol TypedVisitor {
    /// Enters the node into the visitor's type information (before `enter`).
    mutating func enterTypeInfo(_ node: VisitNode)
    /// Leaves the node in the visitor's type information (after `leave`).
    mutating func leaveTypeInfo(_ node: VisitNode)
    /// Returns false to skip the node's children (and its `leave`).
    mutating func enter(_ node: VisitNode) -> Bool
    mutating func leave(_ node: VisitNode)
    /// True when the walk should stop (the error limit was reached).
    var isStopped: Bool { get }
    /// The same four calls for a field, the most numerous node, passed as it is rather
    /// than wrapped in (and copied into) a `VisitNode`. The defaults wrap it.
    mutating func enterFieldTypeInfo(_ field: Field)
    mutating func leaveFieldTypeInfo(_ field: Field)
    mutating func enterField(_ field: Field) -> Bool
    mutating func leaveField(_ field: Field)
}

extension TypedVisitor {
    mutating func enterFieldTypeInfo(_ field: Field) { enterTypeInfo(.field(field)) }
    mutating func leaveFieldTypeInfo(_ field: Field) { leaveTypeInfo(.field(field)) }
    mutating func enterField(_ field: Field) -> Bool { enter(.field(field)) }
    mutating func leaveField(_ field: Field) { leave(.field(field)) }
}

/// Walks an executable document in graphql-js's visiting order (the order of
/// `QueryDocumentKeys`), keeping the visitor's type information current: type
/// information is entered before the visitor sees a node and left after it.
///
/// Type system definitions are not visited; `ExecutableDefinitionsRule` reports them.
struct TypedWalker<Visitor: TypedVisitor> {
    var visitor: Visitor

    init(visitor: Visitor) { self.visitor = visitor }

    mutating func walk(_ document: Document) {
        let node = VisitNode.document(document)
        guard enter(node) else { return }
        for definition in document.definitions {
            if visitor.isStopped { break }
            switch definition {
            case .operation(let operation): walk(operation)
            case .fragment(let fragment): walk(fragment)
            default: break
            }
        }
        leave(node)
    }

    mutating func walk(_ operation: OperationDefinition) {
        let node = VisitNode.operation(operation)
        guard enter(node) else { return }
        for definition in operation.variableDefinitions { walk(definition) }
        walk(operation.directives, at: operation.operation.directiveLocation)
        walk(operation.selectionSet)
        leave(node)
    }

    mutating func walk(_ fragment: FragmentDefinition) {
        let node = VisitNode.fragmentDefinition(fragment)
        guard enter(node) else { return }
        walkNamedType(fragment.typeCondition)
        walk(fragment.directives, at: .fragmentDefinition)
        walk(fragment.selectionSet)
        leave(node)
    }

    private mutating func walk(_ definition: VariableDefinition) {
        let node = VisitNode.variableDefinition(definition)
        guard enter(node) else { return }
        walk(definition.type)
        if let value = definition.defaultValue { walk(value) }
        walk(definition.directives, at: .variableDefinition)
        leave(node)
    }

    private mutating func walk(_ type: TypeReference) {
        switch type {
        case .named(let name): walkNamedType(name)
        case .list(let inner, _), .nonNull(let inner, _): walk(inner)
        }
    }

    private mutating func walkNamedType(_ name: Name) {
        let node = VisitNode.namedType(name)
        if enter(node) { leave(node) }
    }

    private mutating func walk(_ selectionSet: SelectionSet) {
        let node = VisitNode.selectionSet(selectionSet)
        guard enter(node) else { return }
        // By index: iterating copies each selection (retaining all it holds).
        for index in selectionSet.selections.indices {
            if visitor.isStopped { break }
            switch selectionSet.selections[index] {
            case .field(let field): walk(field)
            case .fragmentSpread(let spread):
                let node = VisitNode.fragmentSpread(spread)
                guard enter(node) else { continue }
                walk(spread.directives, at: .fragmentSpread)
                leave(node)
            case .inlineFragment(let fragment):
                let node = VisitNode.inlineFragment(fragment)
                guard enter(node) else { continue }
                if let condition = fragment.typeCondition { walkNamedType(condition) }
                walk(fragment.directives, at: .inlineFragment)
                walk(fragment.selectionSet)
                leave(node)
            }
        }
        leave(node)
    }

    private mutating func walk(_ field: Field) {
        if visitor.isStopped { return }
        visitor.enterFieldTypeInfo(field)
        if visitor.enterField(field) {
            for argument in field.arguments { walk(argument) }
            walk(field.directives, at: .field)
            if let set = field.selectionSet { walk(set) }
            visitor.leaveField(field)
        }
        visitor.leaveFieldTypeInfo(field)
    }

    private mutating func walk(_ directives: [Directive], at location: DirectiveLocation) {
        for directive in directives {
            let node = VisitNode.directive(directive, location)
            guard enter(node) else { continue }
            for argument in directive.arguments { walk(argument) }
            leave(node)
        }
    }

    private mutating func walk(_ argument: Argument) {
        let node = VisitNode.argument(argument)
        guard enter(node) else { return }
        walk(argument.value)
        leave(node)
    }

    private mutating func walk(_ value: Value) {
        let node = VisitNode.value(value)
        guard enter(node) else { return }
        switch value.kind {
        case .list(let items): for item in items { walk(item) }
        case .object(let fields):
            for field in fields {
                let node = VisitNode.objectField(field)
                guard enter(node) else { continue }
                walk(field.value)
                leave(node)
            }
        default: break
        }
        leave(node)
    }

    /// Enters a node into the type information and the visitor; when the visitor
    /// skips it, leaves the type information at once and returns false (then neither
    /// its children nor `leave` are visited).
    @inline(__always)
    private mutating func enter(_ node: VisitNode) -> Bool {
        if visitor.isStopped { return false }
        visitor.enterTypeInfo(node)
        if visitor.enter(node) { return true }
        visitor.leaveTypeInfo(node)
        return false
    }

    @inline(__always)
    private mutating func leave(_ node: VisitNode) {
        visitor.leave(node)
        visitor.leaveTypeInfo(node)
    }
}

extension OperationType {
    /// The directive location of an operation of this type.
    var directiveLocation: DirectiveLocation {
        switch self {
        case .query: .query
        case .mutation: .mutation
        case .subscription: .subscription
        }
    }
}
