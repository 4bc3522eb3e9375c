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

    /// The stored JSON text.
    public var jsonText: String {
        var parts: [String] = []
        func entry(_ key: String, _ access: Access) -> String? {
            var flags: [String] = []
            if access.read { flags.append("\"read\":true") }
            if access.write { flags.append("\"write\":true") }
            return JSONText.quote(key) + ":{" + flags.joined(separator: ",") + "}"
        }
        for (userId, access) in users { if let text = entry(userId, access) { parts.append(text) } }
        for (roleName, access) in roles { if let text = entry("role:" + roleName, access) { parts.append(text) } }
        if let publicAccess, let text = entry("*", publicAccess) { parts.append(text) }
        return "{" + parts.joined(separator: ",") + "}"
    }

    /// From stored JSON text; unreadable entries are skipped. Users and roles come
    /// back sorted (jsonb does not keep key order).
    public init(jsonText: String) {
        self.init()
        var entries: [(key: String, access: Access)]
        if let flags = JSONText.flagEntries(jsonText) {
            entries = flags.map { ($0.key, Access(read: $0.read, write: $0.write)) }
        } else {
            guard let object = JSONText.object(jsonText) else { return }
            entries = object.compactMap { key, value in
                guard let flags = value as? [String: Any] else { return nil }
                return (key, Access(read: flags["read"] as? Bool == true, write: flags["write"] as? Bool == true))
            }
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
