/// A node of the syntax tree, as seen by an `ASTVisitor`.
public enum ASTNode: Sendable {
    case document(Document)
    case operation(OperationDefinition)
    case variableDefinition(VariableDefinition)
    case selectionSet(SelectionSet)
    case field(Field)
    case argument(Argument)
    case fragmentSpread(FragmentSpread)
    case inlineFragment(InlineFragment)
    case fragmentDefinition(FragmentDefinition)
    case value(Value)
    case objectField(ObjectField)
    case directive(Directive)
    /// A type reference (named, list or non-null).
    case type(TypeReference)
    case schemaDefinition(SchemaDefinition, isExtension: Bool)
    case typeDefinition(TypeDefinition, isExtension: Bool)
    case directiveDefinition(DirectiveDefinition)
    case fieldDefinition(FieldDefinition)
    case inputValueDefinition(InputValueDefinition)
    case enumValueDefinition(EnumValueDefinition)
}

/// What a visitor wants after entering a node.
public enum VisitAction: Sendable {
    /// Visit the node's children, then leave it.
    case visitChildren
    /// Leave the node without visiting its children.
    case skipChildren
    /// Stop the whole walk.
    case stop
}

/// Receives every node of a tree in document order: `enter` on the way down,
/// `leave` on the way up (not called for a node whose `enter` said `.stop`).
public protocol ASTVisitor {
    mutating func enter(_ node: ASTNode) -> VisitAction
    mutating func leave(_ node: ASTNode)
}

extension ASTVisitor {
    public mutating func enter(_ node: ASTNode) -> VisitAction { .visitChildren }
    public mutating func leave(_ node: ASTNode) {}
}

/// Walks `document` depth-first, calling `visitor` for every node.
public func walk<V: ASTVisitor>(_ document: Document, _ visitor: inout V) {
    var walker = Walker(visitor: visitor)
    _ = walker.visit(.document(document))
    visitor = walker.visitor
}

/// Walks any node and its descendants.
public func walk<V: ASTVisitor>(_ node: ASTNode, _ visitor: inout V) {
    var walker = Walker(visitor: visitor)
    _ = walker.visit(node)
    visitor = walker.visitor
}

private struct Walker<V: ASTVisitor> {
    var visitor: V

    /// Returns false when the walk must stop.
    mutating func visit(_ node: ASTNode) -> Bool {
        switch visitor.enter(node) {
        case .stop: return false
        case .skipChildren: break
        case .visitChildren:
            guard visitChildren(of: node) else { return false }
        }
        visitor.leave(node)
        return true
    }

    mutating func visitAll(_ nodes: [ASTNode]) -> Bool {
        for node in nodes where !visit(node) { return false }
        return true
    }

    mutating func visitChildren(of node: ASTNode) -> Bool {
        switch node {
        case .document(let document):
            return visitAll(document.definitions.map(astNode))
        case .operation(let operation):
            return visitAll(operation.variableDefinitions.map(ASTNode.variableDefinition))
                && visitAll(operation.directives.map(ASTNode.directive))
                && visit(.selectionSet(operation.selectionSet))
        case .variableDefinition(let definition):
            return visit(.type(definition.type))
                && visitAll(definition.defaultValue.map { [.value($0)] } ?? [])
                && visitAll(definition.directives.map(ASTNode.directive))
        case .selectionSet(let selectionSet):
            return visitAll(selectionSet.selections.map(astNode))
        case .field(let field):
            return visitAll(field.arguments.map(ASTNode.argument))
                && visitAll(field.directives.map(ASTNode.directive))
                && visitAll(field.selectionSet.map { [.selectionSet($0)] } ?? [])
        case .argument(let argument):
            return visit(.value(argument.value))
        case .fragmentSpread(let spread):
            return visitAll(spread.directives.map(ASTNode.directive))
        case .inlineFragment(let fragment):
            return visitAll(fragment.directives.map(ASTNode.directive)) && visit(.selectionSet(fragment.selectionSet))
        case .fragmentDefinition(let fragment):
            return visitAll(fragment.directives.map(ASTNode.directive)) && visit(.selectionSet(fragment.selectionSet))
        case .value(let value):
            switch value.kind {
            case .list(let values): return visitAll(values.map(ASTNode.value))
            case .object(let fields): return visitAll(fields.map(ASTNode.objectField))
            default: return true
            }
        case .objectField(let field):
            return visit(.value(field.value))
        case .directive(let directive):
            return visitAll(directive.arguments.map(ASTNode.argument))
        case .type(let type):
            switch type {
            case .named: return true
            case .list(let inner, _), .nonNull(let inner, _): return visit(.type(inner))
            }
        case .schemaDefinition(let schema, _):
            return visitAll(schema.directives.map(ASTNode.directive))
        case .typeDefinition(let type, _):
            guard visitAll(type.directives.map(ASTNode.directive)) else { return false }
            switch type {
            case .object(let object), .interface(let object):
                return visitAll(object.fields.map(ASTNode.fieldDefinition))
            case .enumType(let enumType):
                return visitAll(enumType.values.map(ASTNode.enumValueDefinition))
            case .inputObject(let input):
                return visitAll(input.fields.map(ASTNode.inputValueDefinition))
            case .scalar, .union:
                return true
            }
        case .directiveDefinition(let directive):
            return visitAll(directive.arguments.map(ASTNode.inputValueDefinition))
        case .fieldDefinition(let field):
            return visitAll(field.arguments.map(ASTNode.inputValueDefinition))
                && visit(.type(field.type))
                && visitAll(field.directives.map(ASTNode.directive))
        case .inputValueDefinition(let input):
            return visit(.type(input.type))
                && visitAll(input.defaultValue.map { [.value($0)] } ?? [])
                && visitAll(input.directives.map(ASTNode.directive))
        case .enumValueDefinition(let value):
            return visitAll(value.directives.map(ASTNode.directive))
        }
    }
}

func astNode(_ definition: Definition) -> ASTNode {
    switch definition {
    case .operation(let node): .operation(node)
    case .fragment(let node): .fragmentDefinition(node)
    case .schema(let node): .schemaDefinition(node, isExtension: false)
    case .schemaExtension(let node): .schemaDefinition(node, isExtension: true)
    case .type(let node): .typeDefinition(node, isExtension: false)
    case .typeExtension(let node): .typeDefinition(node, isExtension: true)
    case .directive(let node): .directiveDefinition(node)
    }
}

func astNode(_ selection: Selection) -> ASTNode {
    switch selection {
    case .field(let node): .field(node)
    case .fragmentSpread(let node): .fragmentSpread(node)
    case .inlineFragment(let node): .inlineFragment(node)
    }
}
