/// A document's fragment definitions by name, each distinct name numbered in the order
/// of its first definition; a name's definition is its last one, as graphql-js keeps.
/// Rules that track fragments keep arrays indexed by these numbers instead of sets and
/// dictionaries of names.
struct FragmentTable {
    private let names: NameTable
    private let definitions: [FragmentDefinition]

    init(_ document: Document) {
        var names = NameTable()
        var definitions: [FragmentDefinition] = []
        for case .fragment(let fragment) in document.definitions {
            let (number, inserted) = names.insert(fragment.name.value)
            if inserted { definitions.append(fragment) } else { definitions[number] = fragment }
        }
        self.names = names
        self.definitions = definitions
    }

    /// The number of distinct fragment names.
    var count: Int { definitions.count }
    var isEmpty: Bool { definitions.isEmpty }

    /// The number of the fragment called `name`, or nil when the document defines none.
    func number(of name: String) -> Int? { names.number(of: name) }

    /// The definition of the fragment called `name`.
    subscript(name: String) -> FragmentDefinition? {
        names.number(of: name).map { definitions[$0] }
    }

    /// The definition of the fragment numbered `number`.
    subscript(number: Int) -> FragmentDefinition { definitions[number] }

    /// The selection set of the fragment numbered `number`: reading it alone does not
    /// copy (and retain) the rest of the definition, as the subscripts do.
    func selectionSet(_ number: Int) -> SelectionSet { definitions[number].selectionSet }

    /// The type condition of the fragment numbered `number`.
    func typeCondition(_ number: Int) -> String { definitions[number].typeCondition.value }
}
