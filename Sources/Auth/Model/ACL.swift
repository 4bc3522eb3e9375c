import JSON

/// A Parse access control list: read and write access per user, per role and for
/// the public. Stored as Parse stores it (`{"<userId>": {"read": true}, "role:R": …,
/// "*": …}`, only true flags written).
public struct ACL: Sendable, Hashable {
    public struct Access: Sendable, Hashable {
        public var read: Bool
        public var write: Bool
        public init(read: Bool, write: Bool) {
            self.read = read
            self.write = write
        }
    }

    /// By user object id, in the order given.
    public var users: [(userId: String, access: Access)]
    /// By role name, in the order given.
    public var roles: [(roleName: String, access: Access)]
    public var publicAccess: Access?

    public init(users: [(userId: String, access: Access)] = [], roles: [(roleName: String, access: Access)] = [], publicAccess: Access? = nil) {
        self.users = users
        self.roles = roles
        self.publicAccess = publicAccess
    }

    public static func == (lhs: ACL, rhs: ACL) -> Bool {
        lhs.users.map(\.userId) == rhs.users.map(\.userId) && lhs.users.map(\.access) == rhs.users.map(\.access)
            && lhs.roles.map(\.roleName) == rhs.roles.map(\.roleName) && lhs.roles.map(\.access) == rhs.roles.map(\.access)
            && lhs.publicAccess == rhs.publicAccess
    }

    public func hash(into hasher: inout Hasher) {
        for entry in users { hasher.combine(entry.userId); hasher.combine(entry.access) }
        for entry in roles { hasher.combine(entry.roleName); hasher.combine(entry.access) }
        hasher.combine(publicAccess)
    }

    /// The ACL of a new user: the given one (or none) with the user's own read and
    /// write entry added, as Parse does.
    public func withOwner(_ userId: String) -> ACL {
        var copy = self
        copy.users.removeAll { $0.userId == userId }
        copy.users.insert((userId, Access(read: true, write: true)), at: 0)
        return copy
    }

    /// The stored JSON text: an object with one entry per user, role (`role:<name>`) and the
    /// public (`*`), in that order, each with only its true flags.
    public var jsonText: String {
        var object = JSONObject()
        func add(_ key: String, _ access: Access) {
            var flags = JSONObject()
            if access.read { flags.appendUnchecked("read", true) }
            if access.write { flags.appendUnchecked("write", true) }
            object[key] = .object(flags)
        }
        for (userId, access) in users { add(userId, access) }
        for (roleName, access) in roles { add("role:" + roleName, access) }
        if let publicAccess { add("*", publicAccess) }
        return JSON.object(object).serializedString()
    }

    /// From stored JSON text. A flag is granted only by `true`; an entry whose value is not
    /// an object is skipped, and text that is not a JSON object grants nothing. Users and
    /// roles come back sorted (jsonb does not keep key order).
    public init(jsonText: String) {
        self.init()
        guard case .object(let object)? = try? JSONParser().parse(jsonText) else { return }
        var entries: [(key: String, access: Access)] = []
        entries.reserveCapacity(object.count)
        for (key, value) in object {
            guard case .object(let flags) = value else { continue }
            entries.append((key, Access(read: flags["read"] == true, write: flags["write"] == true)))
        }
        entries.sort { $0.key < $1.key }
        for (key, access) in entries {
            if key == "*" {
                publicAccess = access
            } else if key.hasPrefix("role:") {
                roles.append((String(key.dropFirst(5)), access))
            } else {
                users.append((key, access))
            }
        }
    }
}
