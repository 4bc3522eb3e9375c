/// A built-in profile field, for ``GatehouseAuth/clearProfile(_:)``.
public enum ProfileField: String, Sendable, Hashable, CaseIterable {
    /// ``User/displayName``.
    case displayName
    /// ``User/photoURL``.
    case photoURL
}
