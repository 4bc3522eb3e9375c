/// What validation resolves at every field, computed once per schema: every named type
/// and every field of an object or interface type (meta-fields included) gets a number,
/// and each field records the number of the type it returns. The walk's `TypeInfo`
/// then keeps only these numbers on its stacks (no reference is retained per node),
/// and finds a field on its parent type through the type's `NameTable`.
final class ValidationIndex: Sendable {
    /// A named type and what the walk asks of it at every node.
    struct TypeEntry: Sendable {
        let type: NamedType
        /// Its position among the object, interface and union types (the index into
        /// `fieldTables`), or -1 when it is not composite.
        let composite: Int
        let isLeaf: Bool
        let isOutputType: Bool
    }

    /// A field definition as validation uses it.
    struct FieldEntry: Sendable {
        let name: String
        let arguments: [InputValueDef]
        let type: TypeRef
        /// The number of the named type it returns, or -1 when the schema has no such type.
        let typeNumber: Int
        /// Whether some argument is required (non-null without a default).
        let hasRequiredArguments: Bool

        init(_ field: FieldDef, typeNumber: Int) {
            self.name = field.name
            self.arguments = field.arguments
            self.type = field.type
            self.typeNumber = typeNumber
            self.hasRequiredArguments = field.arguments.contains(where: \.isRequired)
        }
    }

    /// Every named type, numbered by `typeNames`.
    let types: [TypeEntry]
    let typeNames: NameTable
    /// Per composite type, its fields' names; a field numbered `n` there is
    /// `fields[fieldBases[composite] + n]`.
    private let fieldTables: [NameTable]
    private let fieldBases: [Int]
    /// Every field of every object and interface type, then the three meta-fields.
    let fields: [FieldEntry]
    /// The numbers (in `fields`) of the meta-fields `__schema`, `__type` and `__typename`.
    let schemaMetaField: Int
    let typeMetaField: Int
    let typenameMetaField: Int
    /// The number of the query type.
    private let queryType: Int
    /// The numbers of the root types of queries, mutations and subscriptions (-1: none).
    private let roots: (query: Int, mutation: Int, subscription: Int)
    private static let schemaHash = NameTable.hash("__schema")
    private static let typeHash = NameTable.hash("__type")
    private static let typenameHash = NameTable.hash("__typename")

    // Meta-fields (spec §4.1 and §4.2), known wherever graphql-js's TypeInfo knows them.
    private static let metaFields = [
        FieldDef(
            name: "__schema", description: "Access the current type schema of this server.",
            type: .nonNull(.named("__Schema"))),
        FieldDef(
            name: "__type", description: "Request the type information of a single type.",
            arguments: [InputValueDef(name: "name", type: .nonNull(.named("String")))], type: .named("__Type")),
        FieldDef(
            name: "__typename", description: "The name of the current Object type at runtime.",
            type: .nonNull(.named("String"))),
    ]

    init(types: [NamedType], typeMap: [String: NamedType], roots: (query: String, mutation: String?, subscription: String?)) {
        // The type `GraphQLSchema.type(_:)` returns for each name (the map's); types
        // reachable only through the map (none in a built schema) are still known.
        var typeNames = NameTable()
        var namedTypes: [NamedType] = []
        for listed in types where typeNames.insert(listed.name).inserted { namedTypes.append(typeMap[listed.name] ?? listed) }
        for (name, type) in typeMap.sorted(by: { $0.key < $1.key }) where typeNames.insert(name).inserted {
            namedTypes.append(type)
        }
        var entries: [TypeEntry] = []
        var composites: [NamedType] = []
        for type in namedTypes {
            entries.append(
                TypeEntry(
                    type: type, composite: type.isComposite ? composites.count : -1, isLeaf: type.isLeaf,
                    isOutputType: type.isOutputType))
            if type.isComposite { composites.append(type) }
        }
        var fieldTables: [NameTable] = []
        var fieldBases: [Int] = []
        var fields: [FieldEntry] = []
        for type in composites {
            var table = NameTable()
            fieldBases.append(fields.count)
            // The first of equally named fields, as `ObjectType.field(_:)` finds it.
            for field in type.fields where table.insert(field.name).inserted {
                fields.append(FieldEntry(field, typeNumber: typeNames.number(of: field.type.namedType) ?? -1))
            }
            fieldTables.append(table)
        }
        let metaBase = fields.count
        for field in Self.metaFields {
            fields.append(FieldEntry(field, typeNumber: typeNames.number(of: field.type.namedType) ?? -1))
        }
        self.types = entries
        self.typeNames = typeNames
        self.fieldTables = fieldTables
        self.fieldBases = fieldBases
        self.fields = fields
        (self.schemaMetaField, self.typeMetaField, self.typenameMetaField) = (metaBase, metaBase + 1, metaBase + 2)
        let query = typeNames.number(of: roots.query) ?? -1
        self.queryType = query
        self.roots = (
            query, roots.mutation.flatMap { typeNames.number(of: $0) } ?? -1,
            roots.subscription.flatMap { typeNames.number(of: $0) } ?? -1
        )
    }

    /// The number of the type named `name`, or -1 when the schema has none.
    @inline(__always)
    func typeNumber(_ name: String) -> Int { typeNames.number(of: name) ?? -1 }

    /// The number of the root type of an operation type, or -1 when the schema has none.
    func root(_ operation: OperationType) -> Int {
        switch operation {
        case .query: roots.query
        case .mutation: roots.mutation
        case .subscription: roots.subscription
        }
    }

    /// The number of field `name` on the composite type numbered `parent`, including
    /// meta-fields; nil when the type has no such field.
    func field(_ name: String, on parent: Int) -> Int? {
        // Fields of the entry are read in place: copying it would retain its type.
        let composite = types[parent].composite
        guard composite >= 0 else { return nil }
        let hash = NameTable.hash(name)
        if hash == Self.schemaHash || hash == Self.typeHash || hash == Self.typenameHash {
            if name == "__schema" || name == "__type", parent == queryType, case .object = types[parent].type {
                return name == "__schema" ? schemaMetaField : typeMetaField
            }
            if name == "__typename" { return typenameMetaField }
        }
        guard let number = fieldTables[composite].number(of: name, hash: hash) else { return nil }
        return fieldBases[composite] + number
    }
}
