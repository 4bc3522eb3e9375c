/// An operation's variable definitions by name (the last of equally named ones, as a
/// dictionary keeps them), for the rules that look a definition up at each usage:
/// names are found through a `NameTable`, without hashing with SipHash.
struct VariableDefinitionTable {
    private var names = NameTable()
    private var definitions: [VariableDefinition] = []

    /// Adds a definition, replacing an earlier one of the same name.
    mutating func add(_ definition: VariableDefinition) {
        let (number, inserted) = names.insert(definition.variable.value)
        if inserted { definitions.append(definition) } else { definitions[number] = definition }
    }

    /// The definition of the variable called `name`.
    subscript(name: String) -> VariableDefinition? {
        names.number(of: name).map { definitions[$0] }
    }
}
