/// A difference between two versions of a schema that can affect clients, as
/// graphql-js's `findBreakingChanges` and `findDangerousChanges` report them.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed: graphql-js's BreakingChangeType and DangerousChangeType cases,
    /// with their names as raw values.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        // Breaking (graphql-js BreakingChangeType).
        case typeRemoved = "TYPE_REMOVED"
        case typeChangedKind = "TYPE_CHANGED_KIND"
        case typeRemovedFromUnion = "TYPE_REMOVED_FROM_UNION"
        case valueRemovedFromEnum = "VALUE_REMOVED_FROM_ENUM"
        case requiredInputFieldAdded = "REQUIRED_INPUT_FIELD_ADDED"
        case implementedInterfaceRemoved = "IMPLEMENTED_INTERFACE_REMOVED"
        case fieldRemoved = "FIELD_REMOVED"
        case fieldChangedKind = "FIELD_CHANGED_KIND"
        case requiredArgAdded = "REQUIRED_ARG_ADDED"
        case argRemoved = "ARG_REMOVED"
        case argChangedKind = "ARG_CHANGED_KIND"
        case directiveRemoved = "DIRECTIVE_REMOVED"
        case directiveArgRemoved = "DIRECTIVE_ARG_REMOVED"
        case requiredDirectiveArgAdded = "REQUIRED_DIRECTIVE_ARG_ADDED"
        case directiveRepeatableRemoved = "DIRECTIVE_REPEATABLE_REMOVED"
        case directiveLocationRemoved = "DIRECTIVE_LOCATION_REMOVED"
        // Dangerous (graphql-js DangerousChangeType).
        case valueAddedToEnum = "VALUE_ADDED_TO_ENUM"
        case typeAddedToUnion = "TYPE_ADDED_TO_UNION"
        case optionalInputFieldAdded = "OPTIONAL_INPUT_FIELD_ADDED"
        case optionalArgAdded = "OPTIONAL_ARG_ADDED"
        case implementedInterfaceAdded = "IMPLEMENTED_INTERFACE_ADDED"
        case argDefaultValueChange = "ARG_DEFAULT_VALUE_CHANGE"

        /// Whether existing clients can break (a BreakingChangeType), rather than only
        /// behave differently (a DangerousChangeType).
        public var isBreaking: Bool {
            switch self {
            case .valueAddedToEnum, .typeAddedToUnion, .optionalInputFieldAdded, .optionalArgAdded,
                .implementedInterfaceAdded, .argDefaultValueChange:
                false
            default:
                true
            }
        }
    }

    public let kind: Kind
    /// Whether the change is breaking (else it is dangerous); always `kind.isBreaking`.
    public let isBreaking: Bool
    /// graphql-js's description, such as `Query.viewer changed type from Viewer! to Viewer.`
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.isBreaking = kind.isBreaking
        self.description = description
    }
}
