/// Field Selections (spec §5.3.1): every selected field is defined on the parent
/// type (or is a meta-field). Suggests inline fragments on types that have the
/// field, else similarly named fields, as graphql-js does.
struct FieldsOnCorrectTypeRule: ValidationRule {
    static let enters: VisitKinds = .field
    static let leaves: VisitKinds = []

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        guard !context.typeInfo.hasFieldDef, let parent = context.typeInfo.parentType else { return true }
        let name = field.name.value
        var suggestion = didYouMean(Self.suggestedTypeNames(context.schema, parent, name), sub: "to use an inline fragment on")
        if suggestion.isEmpty { suggestion = didYouMean(Self.suggestedFieldNames(parent, name)) }
        context.report("Cannot query field \"\(name)\" on type \"\(parent.name)\"." + suggestion, at: field.span.start)
        return true
    }

    /// Possible types of an abstract parent, and their interfaces, that define the
    /// field: most referenced first, then super types before sub types, then by name.
    private static func suggestedTypeNames(_ schema: GraphQLSchema, _ type: NamedType, _ fieldName: String) -> [String] {
        guard type.isAbstract else { return [] }
        var order: [String] = []
        var usage: [String: Int] = [:]
        var isInterface: [String: Bool] = [:]
        for possible in schema.possibleTypes(type.name) where possible.field(fieldName) != nil {
            if usage[possible.name] == nil { order.append(possible.name) }
            usage[possible.name] = 1
            isInterface[possible.name] = false
            for interfaceName in possible.interfaces {
                guard case .interface(let interface)? = schema.type(interfaceName),
                    interface.field(fieldName) != nil
                else { continue }
                if usage[interfaceName] == nil { order.append(interfaceName) }
                usage[interfaceName, default: 0] += 1
                isInterface[interfaceName] = true
            }
        }
        return order.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element, rhs.element)
            if usage[a]! != usage[b]! { return usage[a]! > usage[b]! }
            if isInterface[a]!, schema.isSubType(a, b) { return true }
            if isInterface[b]!, schema.isSubType(b, a) { return false }
            if a != b { return naturalLess(a, b) }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    private static func suggestedFieldNames(_ type: NamedType, _ fieldName: String) -> [String] {
        switch type {
        case .object(let object): Suggestions.list(fieldName, object.fields.map(\.name))
        case .interface(let interface): Suggestions.list(fieldName, interface.fields.map(\.name))
        default: []
        }
    }
}

/// graphql-js's `naturalCompare` order: runs of digits compare by value.
func naturalLess(_ a: String, _ b: String) -> Bool {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    var i = 0, j = 0
    func digit(_ s: Unicode.Scalar) -> Int? { s.value >= 48 && s.value <= 57 ? Int(s.value - 48) : nil }
    while i < x.count, j < y.count {
        if digit(x[i]) != nil, digit(y[j]) != nil {
            var numA = 0, numB = 0
            while i < x.count, let d = digit(x[i]) { numA = numA * 10 + d; i += 1 }
            while j < y.count, let d = digit(y[j]) { numB = numB * 10 + d; j += 1 }
            if numA != numB { return numA < numB }
        } else {
            if x[i] != y[j] { return x[i].value < y[j].value }
            i += 1
            j += 1
        }
    }
    return x.count - i < y.count - j
}
