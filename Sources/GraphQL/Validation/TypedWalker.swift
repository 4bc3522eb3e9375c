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
protocol TypedVisitor: AnyObject {
    /// Returns false to skip the node's children (and its `leave`).
    func enter(_ node: VisitNode, _ typeInfo: TypeInfo) -> Bool
    func leave(_ node: VisitNode, _ typeInfo: TypeInfo)
    /// True when the walk should stop (the error limit was reached).
    var isStopped: Bool { get }
}

/// Walks an executable document in graphql-js's visiting order (the order of
/// `QueryDocumentKeys`), keeping a `TypeInfo` current: type information is entered
/// before the visitor sees a node and left after it.
///
/// Type system definitions are not visited; `ExecutableDefinitionsRule` reports them.
struct TypedWalker<Visitor: TypedVisitor> {
    let typeInfo: TypeInfo
    let visitor: Visitor

    init(schema: GraphQLSchema, visitor: Visitor) {
        self.init(typeInfo: TypeInfo(schema: schema), visitor: visitor)
    }

    init(typeInfo: TypeInfo, visitor: Visitor) {
        self.typeInfo = typeInfo
        self.visitor = visitor
    }

    func walk(_ document: Document) {
        visit(.document(document)) {
            for definition in document.definitions {
                if visitor.isStopped { return }
                switch definition {
                case .operation(let operation): walk(operation)
                case .fragment(let fragment): walk(fragment)
                default: break
                }
            }
        }
    }

    func walk(_ operation: OperationDefinition) {
        visit(.operation(operation)) {
            for definition in operation.variableDefinitions { walk(definition) }
            walk(operation.directives, at: operation.operation.directiveLocation)
            walk(operation.selectionSet)
        }
    }

    func walk(_ fragment: FragmentDefinition) {
        visit(.fragmentDefinition(fragment)) {
            visit(.namedType(fragment.typeCondition)) {}
            walk(fragment.directives, at: .fragmentDefinition)
            walk(fragment.selectionSet)
        }
    }

    private func walk(_ definition: VariableDefinition) {
        visit(.variableDefinition(definition)) {
            walk(definition.type)
            if let value = definition.defaultValue { walk(value) }
            walk(definition.directives, at: .variableDefinition)
        }
    }

    private func walk(_ type: TypeReference) {
        switch type {
        case .named(let name): visit(.namedType(name)) {}
        case .list(let inner, _), .nonNull(let inner, _): walk(inner)
        }
    }

    private func walk(_ selectionSet: SelectionSet) {
        visit(.selectionSet(selectionSet)) {
            for selection in selectionSet.selections {
                if visitor.isStopped { return }
                switch selection {
                case .field(let field):
                    visit(.field(field)) {
                        for argument in field.arguments { walk(argument) }
                        walk(field.directives, at: .field)
                        if let set = field.selectionSet { walk(set) }
                    }
                case .fragmentSpread(let spread):
                    visit(.fragmentSpread(spread)) {
                        walk(spread.directives, at: .fragmentSpread)
                    }
                case .inlineFragment(let fragment):
                    visit(.inlineFragment(fragment)) {
                        if let condition = fragment.typeCondition { visit(.namedType(condition)) {} }
                        walk(fragment.directives, at: .inlineFragment)
                        walk(fragment.selectionSet)
                    }
                }
            }
        }
    }

    private func walk(_ directives: [Directive], at location: DirectiveLocation) {
        for directive in directives {
            visit(.directive(directive, location)) {
                for argument in directive.arguments { walk(argument) }
            }
        }
    }

    private func walk(_ argument: Argument) {
        visit(.argument(argument)) { walk(argument.value) }
    }

    private func walk(_ value: Value) {
        visit(.value(value)) {
            switch value.kind {
            case .list(let items): for item in items { walk(item) }
            case .object(let fields):
                for field in fields {
                    visit(.objectField(field)) { walk(field.value) }
                }
            default: break
            }
        }
    }

    private func visit(_ node: VisitNode, _ children: () -> Void) {
        if visitor.isStopped { return }
        typeInfo.enter(node)
        if visitor.enter(node, typeInfo) {
            children()
            visitor.leave(node, typeInfo)
        }
        typeInfo.leave(node)
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
