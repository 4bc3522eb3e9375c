import Testing

@testable import GraphQL

/// Records every node entered and left, in order, as short labels.
private struct Recorder: ASTVisitor {
    var events: [String] = []
    var skip: Set<String> = []
    var stopAt: String? = nil

    static func label(_ node: ASTNode) -> String {
        switch node {
        case .document: "document"
        case .operation(let o): "operation " + (o.name?.value ?? "-")
        case .variableDefinition(let v): "variable $" + v.variable.value
        case .selectionSet: "selectionSet"
        case .field(let f): "field " + f.responseKey
        case .argument(let a): "argument " + a.name.value
        case .fragmentSpread(let s): "spread " + s.name.value
        case .inlineFragment(let i): "inline " + (i.typeCondition?.value ?? "-")
        case .fragmentDefinition(let f): "fragment " + f.name.value
        case .value(let v): "value " + print(v)
        case .objectField(let f): "objectField " + f.name.value
        case .directive(let d): "directive @" + d.name.value
        case .type(let t): "type " + print(t)
        case .schemaDefinition(_, let isExtension): isExtension ? "extend schema" : "schema"
        case .typeDefinition(let t, let isExtension): (isExtension ? "extend " : "") + "typeDefinition " + t.name.value
        case .directiveDefinition(let d): "directiveDefinition @" + d.name.value
        case .fieldDefinition(let f): "fieldDefinition " + f.name.value
        case .inputValueDefinition(let i): "inputValue " + i.name.value
        case .enumValueDefinition(let e): "enumValue " + e.name.value
        }
    }

    mutating func enter(_ node: ASTNode) -> VisitAction {
        let label = Self.label(node)
        events.append("> " + label)
        if label == stopAt { return .stop }
        return skip.contains(label) ? .skipChildren : .visitChildren
    }

    mutating func leave(_ node: ASTNode) { events.append("< " + Self.label(node)) }
}

/// Collects only field names, using the default `leave`.
private struct FieldNames: ASTVisitor {
    var names: [String] = []
    mutating func enter(_ node: ASTNode) -> VisitAction {
        if case .field(let field) = node { names.append(field.name.value) }
        return .visitChildren
    }
}

@Suite struct VisitorTests {
    static let query = "query Q($v: [Int!] = [1] @d) { a(x: {y: [$v, 2]}) @e { b } ...F ... on T { c } } fragment F on T { d }"

    @Test func visitsInDocumentOrder() throws {
        var recorder = Recorder()
        walk(try parse(Self.query), &recorder)
        #expect(recorder.events.filter { $0.hasPrefix(">") } == [
            "> document", "> operation Q", "> variable $v", "> type [Int!]", "> type Int!", "> type Int", "> value [1]", "> value 1",
            "> directive @d", "> selectionSet", "> field a", "> argument x", "> value {y: [$v, 2]}", "> objectField y",
            "> value [$v, 2]", "> value $v", "> value 2", "> directive @e", "> selectionSet", "> field b", "> spread F",
            "> inline T", "> selectionSet", "> field c", "> fragment F", "> selectionSet", "> field d",
        ])
        // Every node entered is left, innermost first.
        #expect(recorder.events.count == 54)
        #expect(recorder.events.suffix(4) == ["< field d", "< selectionSet", "< fragment F", "< document"])
        #expect(recorder.events[4...6] == ["> type Int!", "> type Int", "< type Int"])
    }

    @Test func collectsFieldNames() throws {
        var visitor = FieldNames()
        walk(try parse(Self.query), &visitor)
        #expect(visitor.names == ["a", "b", "c", "d"])
    }

    @Test func skipChildrenSkipsOnlyThatSubtree() throws {
        var recorder = Recorder(skip: ["field a"])
        walk(try parse(Self.query), &recorder)
        let index = try #require(recorder.events.firstIndex(of: "> field a"))
        // Children are skipped but the node is still left (unlike graphql-js, see Deviations.md).
        #expect(recorder.events[index + 1] == "< field a")
        #expect(!recorder.events.contains("> argument x"))
        #expect(recorder.events.contains("> spread F"))
        #expect(recorder.events.contains("> field d"))
    }

    @Test func stopEndsTheWalk() throws {
        var recorder = Recorder(stopAt: "value $v")
        walk(try parse(Self.query), &recorder)
        #expect(recorder.events.last == "> value $v")
        #expect(!recorder.events.contains("> value 2"))
        #expect(!recorder.events.contains("< document"))
    }

    @Test func visitsTypeSystemNodes() throws {
        var recorder = Recorder()
        walk(try parse("schema @s { query: Q } type Q @o { f(a: Int = 1): [Q] } extend enum E { V @v } directive @x(i: I) on FIELD"), &recorder)
        #expect(recorder.events.filter { $0.hasPrefix(">") } == [
            "> document", "> schema", "> directive @s", "> typeDefinition Q", "> directive @o", "> fieldDefinition f",
            "> inputValue a", "> type Int", "> value 1", "> type [Q]", "> type Q", "> extend typeDefinition E", "> enumValue V",
            "> directive @v", "> directiveDefinition @x", "> inputValue i", "> type I",
        ])
    }

    @Test func walksASubtree() throws {
        var visitor = FieldNames()
        guard case .operation(let operation) = try parse("{ a { b } c }").definitions[0] else { return }
        walk(.selectionSet(operation.selectionSet), &visitor)
        #expect(visitor.names == ["a", "b", "c"])
    }
}
