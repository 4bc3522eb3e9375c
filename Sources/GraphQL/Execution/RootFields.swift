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
