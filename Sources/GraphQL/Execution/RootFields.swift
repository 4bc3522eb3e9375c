extension Document {
    /// Whether executing `operation` may execute its root field `name`: whether a field of
    /// that name (under any alias) is in its root selection set, directly or through
    /// inline fragments and fragment spreads. `@skip`/`@include` and type conditions are
    /// not evaluated, so true means "may", false means "will not".
    ///
    /// For transports that start work a root field is known to need before executing.
    public func mayExecute(rootField name: String, of operation: OperationDefinition) -> Bool {
        var visited: Set<String> = []
        func search(_ selectionSet: SelectionSet) -> Bool {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field):
                    if field.name.value == name { return true }
                case .inlineFragment(let fragment):
                    if search(fragment.selectionSet) { return true }
                case .fragmentSpread(let spread):
                    guard visited.insert(spread.name.value).inserted else { continue }
                    for case .fragment(let fragment) in definitions where fragment.name.value == spread.name.value {
                        if search(fragment.selectionSet) { return true }
                    }
                }
            }
            return false
        }
        return search(operation.selectionSet)
    }
}

extension Document {
    /// Whether a field named `name` is selected anywhere in the document's operations and
    /// fragments, at any depth (under any alias). Like ``mayExecute(rootField:of:)``, true means
    /// "may", false means "will not".
    public func selects(field name: String) -> Bool {
        func search(_ selectionSet: SelectionSet?) -> Bool {
            guard let selectionSet else { return false }
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field):
                    if field.name.value == name || search(field.selectionSet) { return true }
                case .inlineFragment(let fragment):
                    if search(fragment.selectionSet) { return true }
                case .fragmentSpread:
                    continue  // the fragment's own definition is searched below
                }
            }
            return false
        }
        return definitions.contains { definition in
            switch definition {
            case .operation(let operation): search(operation.selectionSet)
            case .fragment(let fragment): search(fragment.selectionSet)
            default: false
            }
        }
    }
}
