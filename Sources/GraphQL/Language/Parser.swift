/// Limits that keep hostile documents from costing unbounded time or stack.
public struct ParseOptions: Sendable, Hashable {
    /// The most tokens a document may have (nil: no limit).
    public var maxTokens: Int?
    /// The deepest nesting of selection sets, list and object values and list types.
    public var maxDepth: Int

    public init(maxTokens: Int? = 10_000, maxDepth: Int = 128) {
        self.maxTokens = maxTokens
        self.maxDepth = maxDepth
    }

    /// No token limit, for trusted SDL such as the server's own schema.
    public static let trusted = ParseOptions(maxTokens: nil, maxDepth: 512)
}

/// Parses a whole document: executable definitions, type system definitions and
/// extensions (spec §2.2 Document).
public func parse(_ source: Source, options: ParseOptions = ParseOptions()) throws(GraphQLError) -> Document {
    try Parser.run(source, options) { (parser: inout Parser) throws(GraphQLError) in try parser.parseDocument() }
}

/// Parses text as a document.
public func parse(_ text: String, options: ParseOptions = ParseOptions()) throws(GraphQLError) -> Document {
    try parse(Source(text), options: options)
}

/// Parses a lone value (variables allowed unless `const`), for tools and tests.
public func parseValue(_ source: Source, const: Bool = false) throws(GraphQLError) -> Value {
    try Parser.run(source, ParseOptions()) { (parser: inout Parser) throws(GraphQLError) in
        try parser.expect(.startOfFile)
        let value = try parser.parseValueLiteral(isConst: const)
        try parser.expect(.endOfFile)
        return value
    }
}

/// Parses a lone type reference such as `[String!]!`.
public func parseType(_ source: Source) throws(GraphQLError) -> TypeReference {
    try Parser.run(source, ParseOptions()) { (parser: inout Parser) throws(GraphQLError) in
        try parser.expect(.startOfFile)
        let type = try parser.parseTypeReference()
        try parser.expect(.endOfFile)
        return type
    }
}

/// A recursive-descent parser: one `parseX()` per grammar production, each quoting
/// the production it reads. Errors are thrown at the first problem, in graphql-js's words.
struct Parser {
    private var lexer: Lexer
    private let options: ParseOptions
    /// How many more tokens the document may have (`options.maxTokens`, or unlimited).
    private var tokensLeft: Int
    private var depth = 0
    /// The end offset of the last consumed token, for node spans.
    private var lastEnd = 0

    static func run<T>(
        _ source: Source, _ options: ParseOptions, _ body: (inout Parser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> T {
        let result: Result<T, GraphQLError> = source.bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(lexer: Lexer(source: source, bytes: buffer), options: options)
            return Result { () throws(GraphQLError) -> T in try body(&parser) }
        }
        return try result.get()
    }

    private init(lexer: Lexer, options: ParseOptions) {
        self.lexer = lexer
        self.options = options
        self.tokensLeft = options.maxTokens ?? .max
    }

    // MARK: Token helpers

    private var token: Token { lexer.token }

    @inline(__always)
    private mutating func advance() throws(GraphQLError) {
        lastEnd = lexer.end
        try lexer.advance()
        // The end of the file is not counted: it is the last token, and only it may
        // follow the last allowed one.
        tokensLeft &-= 1
        if tokensLeft < 0, lexer.kind != .endOfFile, let maxTokens = options.maxTokens {
            throw tooManyTokens(maxTokens)
        }
    }

    private func tooManyTokens(_ maxTokens: Int) -> GraphQLError {
        error(lexer.start, "Document contains more than \(maxTokens) tokens. Parsing aborted.")
    }

    private func error(_ offset: Int, _ description: String) -> GraphQLError {
        .syntax(lexer.source, at: offset, description)
    }

    @inline(__always)
    private func peek(_ kind: TokenKind) -> Bool { lexer.kind == kind }

    @inline(__always)
    mutating func expect(_ kind: TokenKind) throws(GraphQLError) {
        guard lexer.kind == kind else { throw expected(kind) }
        try advance()
    }

    private func expected(_ kind: TokenKind) -> GraphQLError {
        error(lexer.start, "Expected \(kind.errorDescription), found \(token.errorDescription).")
    }

    /// Consumes a token of `kind` if it is next.
    @inline(__always)
    private mutating func skip(_ kind: TokenKind) throws(GraphQLError) -> Bool {
        guard lexer.kind == kind else { return false }
        try advance()
        return true
    }

    private mutating func expectKeyword(_ keyword: StaticString) throws(GraphQLError) {
        guard lexer.isName(keyword) else {
            throw error(lexer.start, "Expected \"\(keyword)\", found \(token.errorDescription).")
        }
        try advance()
    }

    private mutating func skipKeyword(_ keyword: StaticString) throws(GraphQLError) -> Bool {
        guard lexer.isName(keyword) else { return false }
        try advance()
        return true
    }

    private func unexpected(_ at: Token? = nil) -> GraphQLError {
        let offending = at ?? token
        return error(offending.start, "Unexpected \(offending.errorDescription).")
    }

    private func span(from start: Int) -> Span { Span(start: start, end: lastEnd) }

    private mutating func nest() throws(GraphQLError) {
        depth += 1
        if depth > options.maxDepth {
            throw error(lexer.start, "Document exceeds the maximum nesting depth of \(options.maxDepth).")
        }
    }

    /// `open` Item+ `close`: one or more items.
    private mutating func many<T>(
        _ open: TokenKind, _ close: TokenKind, _ item: (inout Parser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> [T] {
        try expect(open)
        var items: [T] = []
        items.reserveCapacity(4)  // one allocation for the usual short lists, not 1, 2, 4
        repeat { items.append(try item(&self)) } while !(try skip(close))
        return items
    }

    /// `open` Item+ `close` when `open` is next, else no items.
    private mutating func optionalMany<T>(
        _ open: TokenKind, _ close: TokenKind, _ item: (inout Parser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> [T] {
        peek(open) ? try many(open, close, item) : []
    }

    /// `open` Item* `close`: zero or more items.
    private mutating func any<T>(
        _ open: TokenKind, _ close: TokenKind, _ item: (inout Parser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> [T] {
        try expect(open)
        if try skip(close) { return [] }
        var items: [T] = []
        items.reserveCapacity(4)  // one allocation for the usual short lists, not 1, 2, 4
        repeat { items.append(try item(&self)) } while !(try skip(close))
        return items
    }

    /// `delimiter`? Item (`delimiter` Item)*
    private mutating func delimitedMany<T>(
        _ delimiter: TokenKind, _ item: (inout Parser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> [T] {
        _ = try skip(delimiter)
        var items: [T] = []
        items.reserveCapacity(4)  // one allocation for the usual short lists, not 1, 2, 4
        repeat { items.append(try item(&self)) } while try skip(delimiter)
        return items
    }

    // MARK: Document

    /// Document : Definition+
    mutating func parseDocument() throws(GraphQLError) -> Document {
        let start = lexer.start
        let definitions = try many(.startOfFile, .endOfFile) { (p: inout Parser) throws(GraphQLError) in try p.parseDefinition() }
        return Document(definitions: definitions, span: Span(start: start, end: lastEnd))
    }

    /// Definition : ExecutableDefinition | TypeSystemDefinitionOrExtension
    private mutating func parseDefinition() throws(GraphQLError) -> Definition {
        if peek(.braceL) { return .operation(try parseOperationDefinition()) }
        let hasDescription = peekDescription
        let keyword = hasDescription ? try lexer.lookahead() : token
        if hasDescription && keyword.kind == .braceL {
            throw error(lexer.start, "Unexpected description, descriptions are not supported on shorthand queries.")
        }
        if keyword.kind == .name {
            switch keyword.value {
            case "schema": return .schema(try parseSchemaDefinition())
            case "scalar": return .type(.scalar(try parseScalarTypeDefinition()))
            case "type": return .type(.object(try parseObjectTypeDefinition(keyword: "type")))
            case "interface": return .type(.interface(try parseObjectTypeDefinition(keyword: "interface")))
            case "union": return .type(.union(try parseUnionTypeDefinition()))
            case "enum": return .type(.enumType(try parseEnumTypeDefinition()))
            case "input": return .type(.inputObject(try parseInputObjectTypeDefinition()))
            case "directive": return .directive(try parseDirectiveDefinition())
            case "query", "mutation", "subscription": return .operation(try parseOperationDefinition())
            case "fragment": return .fragment(try parseFragmentDefinition())
            default: break
            }
            if hasDescription {
                throw error(lexer.start, "Unexpected description, only GraphQL definitions support descriptions.")
            }
            if keyword.value == "extend" { return try parseTypeSystemExtension() }
        }
        throw unexpected(keyword)
    }

    // MARK: Operations

    /// OperationDefinition : Description? OperationType Name? VariablesDefinition? Directives? SelectionSet | SelectionSet
    private mutating func parseOperationDefinition() throws(GraphQLError) -> OperationDefinition {
        let start = lexer.start
        if peek(.braceL) {
            let selectionSet = try parseSelectionSet()
            return OperationDefinition(operation: .query, selectionSet: selectionSet, span: span(from: start))
        }
        let description = try parseDescription()
        let operation = try parseOperationType()
        let name = peek(.name) ? try parseName() : nil
        let variables = try optionalMany(.parenL, .parenR) { (p: inout Parser) throws(GraphQLError) in try p.parseVariableDefinition() }
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return OperationDefinition(
            description: description, operation: operation, name: name, variableDefinitions: variables,
            directives: directives, selectionSet: selectionSet, span: span(from: start))
    }

    /// OperationType : one of `query` `mutation` `subscription`
    private mutating func parseOperationType() throws(GraphQLError) -> OperationType {
        guard lexer.kind == .name else { throw expected(.name) }
        let operation: OperationType
        if lexer.isName("query") {
            operation = .query
        } else if lexer.isName("mutation") {
            operation = .mutation
        } else if lexer.isName("subscription") {
            operation = .subscription
        } else {
            // The token is consumed before the error, as `expect(.name)` did: a lexer
            // error in the next token takes precedence.
            let current = token
            try advance()
            throw unexpected(current)
        }
        try advance()
        return operation
    }

    /// VariableDefinition : Description? Variable : Type DefaultValue? Directives[Const]?
    private mutating func parseVariableDefinition() throws(GraphQLError) -> VariableDefinition {
        let start = lexer.start
        let description = try parseDescription()
        let variable = try parseVariable()
        try expect(.colon)
        let type = try parseTypeReference()
        let defaultValue = try skip(.equals) ? try parseValueLiteral(isConst: true) : nil
        let directives = try parseDirectives(isConst: true)
        return VariableDefinition(
            description: description, variable: variable, type: type, defaultValue: defaultValue,
            directives: directives, span: span(from: start))
    }

    /// Variable : $ Name
    private mutating func parseVariable() throws(GraphQLError) -> Name {
        try expect(.dollar)
        return try parseName()
    }

    /// SelectionSet : { Selection+ }
    private mutating func parseSelectionSet() throws(GraphQLError) -> SelectionSet {
        let start = lexer.start
        try nest()
        defer { depth -= 1 }
        let selections = try many(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseSelection() }
        return SelectionSet(selections: selections, span: span(from: start))
    }

    /// Selection : Field | FragmentSpread | InlineFragment
    private mutating func parseSelection() throws(GraphQLError) -> Selection {
        peek(.spread) ? try parseFragment() : .field(try parseField())
    }

    /// Field : Alias? Name Arguments? Directives? SelectionSet?
    private mutating func parseField() throws(GraphQLError) -> Field {
        let start = lexer.start
        let nameOrAlias = try parseName()
        let alias: Name?
        let name: Name
        if try skip(.colon) {
            alias = nameOrAlias
            name = try parseName()
        } else {
            alias = nil
            name = nameOrAlias
        }
        let arguments = try parseArguments(isConst: false)
        let directives = try parseDirectives(isConst: false)
        let selectionSet = peek(.braceL) ? try parseSelectionSet() : nil
        return Field(
            alias: alias, name: name, arguments: arguments, directives: directives,
            selectionSet: selectionSet, span: span(from: start))
    }

    /// Arguments[Const] : ( Argument[?Const]+ )
    private mutating func parseArguments(isConst: Bool) throws(GraphQLError) -> [Argument] {
        try optionalMany(.parenL, .parenR) { (p: inout Parser) throws(GraphQLError) in try p.parseArgument(isConst: isConst) }
    }

    /// Argument[Const] : Name : Value[?Const]
    private mutating func parseArgument(isConst: Bool) throws(GraphQLError) -> Argument {
        let start = lexer.start
        let name = try parseName()
        try expect(.colon)
        let value = try parseValueLiteral(isConst: isConst)
        return Argument(name: name, value: value, span: span(from: start))
    }

    /// FragmentSpread : ... FragmentName Directives?
    /// InlineFragment : ... TypeCondition? Directives? SelectionSet
    private mutating func parseFragment() throws(GraphQLError) -> Selection {
        let start = lexer.start
        try expect(.spread)
        let hasTypeCondition = try skipKeyword("on")
        if !hasTypeCondition && peek(.name) {
            let name = try parseFragmentName()
            let directives = try parseDirectives(isConst: false)
            return .fragmentSpread(FragmentSpread(name: name, directives: directives, span: span(from: start)))
        }
        let typeCondition = hasTypeCondition ? try parseName() : nil
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return .inlineFragment(
            InlineFragment(
                typeCondition: typeCondition, directives: directives, selectionSet: selectionSet,
                span: span(from: start)))
    }

    /// FragmentDefinition : Description? fragment FragmentName TypeCondition Directives? SelectionSet
    private mutating func parseFragmentDefinition() throws(GraphQLError) -> FragmentDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("fragment")
        let name = try parseFragmentName()
        try expectKeyword("on")
        let typeCondition = try parseName()
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return FragmentDefinition(
            description: description, name: name, typeCondition: typeCondition, directives: directives,
            selectionSet: selectionSet, span: span(from: start))
    }

    /// FragmentName : Name but not `on`
    private mutating func parseFragmentName() throws(GraphQLError) -> Name {
        if lexer.isName("on") { throw unexpected() }
        return try parseName()
    }

    // MARK: Values

    /// Value[Const] : [~Const] Variable | IntValue | FloatValue | StringValue | BooleanValue
    ///   | NullValue | EnumValue | ListValue[?Const] | ObjectValue[?Const]
    mutating func parseValueLiteral(isConst: Bool) throws(GraphQLError) -> Value {
        let start = lexer.start
        switch lexer.kind {
        case .bracketL:
            // ListValue[Const] : [ ] | [ Value[?Const]+ ]
            try nest()
            defer { depth -= 1 }
            let values = try any(.bracketL, .bracketR) { (p: inout Parser) throws(GraphQLError) in try p.parseValueLiteral(isConst: isConst) }
            return Value(.list(values), span: span(from: start))
        case .braceL:
            // ObjectValue[Const] : { } | { ObjectField[?Const]+ }
            try nest()
            defer { depth -= 1 }
            let fields = try any(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseObjectField(isConst: isConst) }
            return Value(.object(fields), span: span(from: start))
        case .int:
            let value = lexer.asciiValue()
            try advance()
            return Value(.int(value), span: span(from: start))
        case .float:
            let value = lexer.asciiValue()
            try advance()
            return Value(.float(value), span: span(from: start))
        case .string, .blockString:
            let block = lexer.kind == .blockString
            let value = lexer.value
            try advance()
            return Value(.string(value, block: block), span: span(from: start))
        case .name:
            let kind: Value.Kind
            if lexer.isName("true") {
                kind = .boolean(true)
            } else if lexer.isName("false") {
                kind = .boolean(false)
            } else if lexer.isName("null") {
                kind = .null
            } else {
                kind = .enumValue(lexer.asciiValue())
            }
            try advance()
            return Value(kind, span: span(from: start))
        case .dollar:
            if isConst {
                let current = token
                let next = try lexer.lookahead()
                if next.kind == .name {
                    throw error(current.start, "Unexpected variable \"$\(next.value)\" in constant value.")
                }
                throw unexpected(current)
            }
            let name = try parseVariable()
            return Value(.variable(name.value), span: span(from: start))
        default:
            throw unexpected()
        }
    }

    /// ObjectField[Const] : Name : Value[?Const]
    private mutating func parseObjectField(isConst: Bool) throws(GraphQLError) -> ObjectField {
        let start = lexer.start
        let name = try parseName()
        try expect(.colon)
        let value = try parseValueLiteral(isConst: isConst)
        return ObjectField(name: name, value: value, span: span(from: start))
    }

    /// Description : StringValue
    private var peekDescription: Bool { peek(.string) || peek(.blockString) }

    private mutating func parseDescription() throws(GraphQLError) -> StringValue? {
        guard peekDescription else { return nil }
        let start = lexer.start
        let block = lexer.kind == .blockString
        let value = lexer.value
        try advance()
        return StringValue(value, block: block, span: span(from: start))
    }

    // MARK: Directives and types

    /// Directives[Const] : Directive[?Const]+
    private mutating func parseDirectives(isConst: Bool) throws(GraphQLError) -> [Directive] {
        var directives: [Directive] = []
        while peek(.at) { directives.append(try parseDirective(isConst: isConst)) }
        return directives
    }

    /// Directive[Const] : @ Name Arguments[?Const]?
    private mutating func parseDirective(isConst: Bool) throws(GraphQLError) -> Directive {
        let start = lexer.start
        try expect(.at)
        let name = try parseName()
        let arguments = try parseArguments(isConst: isConst)
        return Directive(name: name, arguments: arguments, span: span(from: start))
    }

    /// Type : NamedType | ListType | NonNullType
    mutating func parseTypeReference() throws(GraphQLError) -> TypeReference {
        let start = lexer.start
        var type: TypeReference
        if try skip(.bracketL) {
            // ListType : [ Type ]
            try nest()
            defer { depth -= 1 }
            let inner = try parseTypeReference()
            try expect(.bracketR)
            type = .list(inner, span: span(from: start))
        } else {
            type = .named(try parseName())
        }
        // NonNullType : NamedType ! | ListType !
        if try skip(.bang) { type = .nonNull(type, span: span(from: start)) }
        return type
    }

    /// Name :: NameStart NameContinue*
    private mutating func parseName() throws(GraphQLError) -> Name {
        guard lexer.kind == .name else { throw expected(.name) }
        let name = Name(lexer.asciiValue(), span: Span(start: lexer.start, end: lexer.end))
        try advance()
        return name
    }

    // MARK: Type system definitions

    /// SchemaDefinition : Description? schema Directives[Const]? { RootOperationTypeDefinition+ }
    private mutating func parseSchemaDefinition() throws(GraphQLError) -> SchemaDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("schema")
        let directives = try parseDirectives(isConst: true)
        let operationTypes = try many(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseRootOperationTypeDefinition() }
        return SchemaDefinition(
            description: description, directives: directives, operationTypes: operationTypes, span: span(from: start))
    }

    /// RootOperationTypeDefinition : OperationType : NamedType
    private mutating func parseRootOperationTypeDefinition() throws(GraphQLError) -> RootOperationTypeDefinition {
        let start = lexer.start
        let operation = try parseOperationType()
        try expect(.colon)
        let type = try parseName()
        return RootOperationTypeDefinition(operation: operation, type: type, span: span(from: start))
    }

    /// ScalarTypeDefinition : Description? scalar Name Directives[Const]?
    private mutating func parseScalarTypeDefinition() throws(GraphQLError) -> ScalarTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("scalar")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        return ScalarTypeDefinition(description: description, name: name, directives: directives, span: span(from: start))
    }

    /// ObjectTypeDefinition : Description? type Name ImplementsInterfaces? Directives[Const]? FieldsDefinition?
    /// InterfaceTypeDefinition : Description? interface Name ImplementsInterfaces? Directives[Const]? FieldsDefinition?
    private mutating func parseObjectTypeDefinition(keyword: StaticString) throws(GraphQLError) -> ObjectTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword(keyword)
        let name = try parseName()
        let interfaces = try parseImplementsInterfaces()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseFieldsDefinition()
        return ObjectTypeDefinition(
            description: description, name: name, interfaces: interfaces, directives: directives,
            fields: fields, span: span(from: start))
    }

    /// ImplementsInterfaces : implements `&`? NamedType | ImplementsInterfaces & NamedType
    private mutating func parseImplementsInterfaces() throws(GraphQLError) -> [Name] {
        guard try skipKeyword("implements") else { return [] }
        return try delimitedMany(.amp) { (p: inout Parser) throws(GraphQLError) in try p.parseName() }
    }

    /// FieldsDefinition : { FieldDefinition+ }
    private mutating func parseFieldsDefinition() throws(GraphQLError) -> [FieldDefinition] {
        try optionalMany(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseFieldDefinition() }
    }

    /// FieldDefinition : Description? Name ArgumentsDefinition? : Type Directives[Const]?
    private mutating func parseFieldDefinition() throws(GraphQLError) -> FieldDefinition {
        let start = lexer.start
        let description = try parseDescription()
        let name = try parseName()
        let arguments = try parseArgumentDefinitions()
        try expect(.colon)
        let type = try parseTypeReference()
        let directives = try parseDirectives(isConst: true)
        return FieldDefinition(
            description: description, name: name, arguments: arguments, type: type, directives: directives,
            span: span(from: start))
    }

    /// ArgumentsDefinition : ( InputValueDefinition+ )
    private mutating func parseArgumentDefinitions() throws(GraphQLError) -> [InputValueDefinition] {
        try optionalMany(.parenL, .parenR) { (p: inout Parser) throws(GraphQLError) in try p.parseInputValueDefinition() }
    }

    /// InputValueDefinition : Description? Name : Type DefaultValue? Directives[Const]?
    private mutating func parseInputValueDefinition() throws(GraphQLError) -> InputValueDefinition {
        let start = lexer.start
        let description = try parseDescription()
        let name = try parseName()
        try expect(.colon)
        let type = try parseTypeReference()
        let defaultValue = try skip(.equals) ? try parseValueLiteral(isConst: true) : nil
        let directives = try parseDirectives(isConst: true)
        return InputValueDefinition(
            description: description, name: name, type: type, defaultValue: defaultValue,
            directives: directives, span: span(from: start))
    }

    /// UnionTypeDefinition : Description? union Name Directives[Const]? UnionMemberTypes?
    private mutating func parseUnionTypeDefinition() throws(GraphQLError) -> UnionTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("union")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let types = try parseUnionMemberTypes()
        return UnionTypeDefinition(
            description: description, name: name, directives: directives, types: types, span: span(from: start))
    }

    /// UnionMemberTypes : = `|`? NamedType | UnionMemberTypes | NamedType
    private mutating func parseUnionMemberTypes() throws(GraphQLError) -> [Name] {
        guard try skip(.equals) else { return [] }
        return try delimitedMany(.pipe) { (p: inout Parser) throws(GraphQLError) in try p.parseName() }
    }

    /// EnumTypeDefinition : Description? enum Name Directives[Const]? EnumValuesDefinition?
    private mutating func parseEnumTypeDefinition() throws(GraphQLError) -> EnumTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("enum")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let values = try parseEnumValuesDefinition()
        return EnumTypeDefinition(
            description: description, name: name, directives: directives, values: values, span: span(from: start))
    }

    /// EnumValuesDefinition : { EnumValueDefinition+ }
    private mutating func parseEnumValuesDefinition() throws(GraphQLError) -> [EnumValueDefinition] {
        try optionalMany(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseEnumValueDefinition() }
    }

    /// EnumValueDefinition : Description? EnumValue Directives[Const]?
    private mutating func parseEnumValueDefinition() throws(GraphQLError) -> EnumValueDefinition {
        let start = lexer.start
        let description = try parseDescription()
        // EnumValue : Name but not `true`, `false` or `null`
        if lexer.isName("true") || lexer.isName("false") || lexer.isName("null") {
            throw error(lexer.start, "\(token.errorDescription) is reserved and cannot be used for an enum value.")
        }
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        return EnumValueDefinition(description: description, name: name, directives: directives, span: span(from: start))
    }

    /// InputObjectTypeDefinition : Description? input Name Directives[Const]? InputFieldsDefinition?
    private mutating func parseInputObjectTypeDefinition() throws(GraphQLError) -> InputObjectTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("input")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseInputFieldsDefinition()
        return InputObjectTypeDefinition(
            description: description, name: name, directives: directives, fields: fields, span: span(from: start))
    }

    /// InputFieldsDefinition : { InputValueDefinition+ }
    private mutating func parseInputFieldsDefinition() throws(GraphQLError) -> [InputValueDefinition] {
        try optionalMany(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in try p.parseInputValueDefinition() }
    }

    /// DirectiveDefinition : Description? directive @ Name ArgumentsDefinition? `repeatable`? on DirectiveLocations
    private mutating func parseDirectiveDefinition() throws(GraphQLError) -> DirectiveDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("directive")
        try expect(.at)
        let name = try parseName()
        let arguments = try parseArgumentDefinitions()
        let isRepeatable = try skipKeyword("repeatable")
        try expectKeyword("on")
        let locations = try delimitedMany(.pipe) { (p: inout Parser) throws(GraphQLError) in try p.parseDirectiveLocation() }
        return DirectiveDefinition(
            description: description, name: name, arguments: arguments, isRepeatable: isRepeatable,
            locations: locations, span: span(from: start))
    }

    /// DirectiveLocation : ExecutableDirectiveLocation | TypeSystemDirectiveLocation
    private mutating func parseDirectiveLocation() throws(GraphQLError) -> Name {
        let current = token
        let name = try parseName()
        guard DirectiveLocation(rawValue: name.value) != nil else { throw unexpected(current) }
        return name
    }

    // MARK: Type system extensions

    /// TypeSystemExtension : SchemaExtension | TypeExtension
    private mutating func parseTypeSystemExtension() throws(GraphQLError) -> Definition {
        let keyword = try lexer.lookahead()
        guard keyword.kind == .name else { throw unexpected(keyword) }
        let start = lexer.start
        switch keyword.value {
        case "schema":
            // SchemaExtension : extend schema Directives[Const]? { RootOperationTypeDefinition+ } | extend schema Directives[Const]
            try expectKeyword("extend")
            try expectKeyword("schema")
            let directives = try parseDirectives(isConst: true)
            let operationTypes = try optionalMany(.braceL, .braceR) { (p: inout Parser) throws(GraphQLError) in
                try p.parseRootOperationTypeDefinition()
            }
            if directives.isEmpty && operationTypes.isEmpty { throw unexpected() }
            return .schemaExtension(
                SchemaDefinition(directives: directives, operationTypes: operationTypes, span: span(from: start)))
        case "scalar":
            // ScalarTypeExtension : extend scalar Name Directives[Const]
            try expectKeyword("extend")
            try expectKeyword("scalar")
            let name = try parseName()
            let directives = try parseDirectives(isConst: true)
            if directives.isEmpty { throw unexpected() }
            return .typeExtension(.scalar(ScalarTypeDefinition(name: name, directives: directives, span: span(from: start))))
        case "type", "interface":
            // ObjectTypeExtension / InterfaceTypeExtension : extend type|interface Name ImplementsInterfaces? Directives[Const]? FieldsDefinition (at least one)
            try expectKeyword("extend")
            try advance()  // `type` or `interface`, just looked ahead at
            let name = try parseName()
            let interfaces = try parseImplementsInterfaces()
            let directives = try parseDirectives(isConst: true)
            let fields = try parseFieldsDefinition()
            if interfaces.isEmpty && directives.isEmpty && fields.isEmpty { throw unexpected() }
            let node = ObjectTypeDefinition(
                name: name, interfaces: interfaces, directives: directives, fields: fields, span: span(from: start))
            return .typeExtension(keyword.value == "type" ? .object(node) : .interface(node))
        case "union":
            // UnionTypeExtension : extend union Name Directives[Const]? UnionMemberTypes | extend union Name Directives[Const]
            try expectKeyword("extend")
            try expectKeyword("union")
            let name = try parseName()
            let directives = try parseDirectives(isConst: true)
            let types = try parseUnionMemberTypes()
            if directives.isEmpty && types.isEmpty { throw unexpected() }
            return .typeExtension(
                .union(UnionTypeDefinition(name: name, directives: directives, types: types, span: span(from: start))))
        case "enum":
            // EnumTypeExtension : extend enum Name Directives[Const]? EnumValuesDefinition | extend enum Name Directives[Const]
            try expectKeyword("extend")
            try expectKeyword("enum")
            let name = try parseName()
            let directives = try parseDirectives(isConst: true)
            let values = try parseEnumValuesDefinition()
            if directives.isEmpty && values.isEmpty { throw unexpected() }
            return .typeExtension(
                .enumType(EnumTypeDefinition(name: name, directives: directives, values: values, span: span(from: start))))
        case "input":
            // InputObjectTypeExtension : extend input Name Directives[Const]? InputFieldsDefinition | extend input Name Directives[Const]
            try expectKeyword("extend")
            try expectKeyword("input")
            let name = try parseName()
            let directives = try parseDirectives(isConst: true)
            let fields = try parseInputFieldsDefinition()
            if directives.isEmpty && fields.isEmpty { throw unexpected() }
            return .typeExtension(
                .inputObject(
                    InputObjectTypeDefinition(name: name, directives: directives, fields: fields, span: span(from: start))))
        default:
            throw unexpected(keyword)
        }
    }
}
