import JSON

/// What a sign-up or `updateUser` sets of a user's profile, checked (``UserFields/check(_:isMaster:)``):
/// values by field name, the built-in `displayName` and `photoURL` and declared fields alike; null
/// clears a field, and a field not named keeps its value.
public struct ProfileChange: Sendable, Hashable {
    /// The built-in field names.
    public static let displayName = "displayName"
    public static let photoURL = "photoURL"

    /// The checked values, by field name.
    public let values: JSONObject

    /// No change.
    public static let none = ProfileChange(values: [:])

    init(values: JSONObject) { self.values = values }

    public var isEmpty: Bool { values.isEmpty }

    /// `user` with this change made: 142 when its declared fields would then be more than
    /// ``UserFields/maxTotalBytes`` of JSON and more than they were (a change that does not grow an
    /// oversized set still goes through).
    func applied(to user: User) throws(AuthError) -> User {
        guard !values.isEmpty else { return user }
        var changed = user
        var fieldsChanged = false
        for (name, value) in zip(values.keys, values.values) {
            switch name {
            case Self.displayName: changed.displayName = value.stringValue
            case Self.photoURL: changed.photoURL = value.stringValue
            default:
                changed.fields[name] = value.isNull ? nil : value
                fieldsChanged = true
            }
        }
        if fieldsChanged {
            let size = JSON.object(changed.fields).serialized().count
            if size > UserFields.maxTotalBytes, size > JSON.object(user.fields).serialized().count {
                throw .tooLarge(field: "fields", bytes: UserFields.maxTotalBytes)
            }
        }
        return changed
    }
}
