import Foundation
import IPNetworks
import JSON

/// The fields of a user's profile and the rules their values are checked against: the built-in
/// `displayName` and `photoURL`, and the fields the app declares (`GATEHOUSE_USER_FIELDS`, read
/// by the GraphQL layer). Types are checked before a value gets here (GraphQL coercion); this
/// checks sizes, who may write a field, and the built-in fields' forms.
public struct UserFields: Sendable, Hashable {
    /// A declared field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: ValueType
        /// A list of `type` (`[T!]`).
        public var isList: Bool
        /// `@maxLength`: characters of a string (of each string of a list).
        public var maxLength: Int
        /// `@maxItems`: items of a list.
        public var maxItems: Int
        /// `@maxBytes`: bytes of an `Object` (of each object of a list) as JSON.
        public var maxBytes: Int
        public var access: Access
        /// `@claim`: copied into access tokens under the field's name.
        public var isClaim: Bool

        public init(
            name: String, type: ValueType, isList: Bool = false, maxLength: Int = UserFields.defaultMaxLength,
            maxItems: Int = UserFields.defaultMaxItems, maxBytes: Int = UserFields.defaultMaxBytes,
            access: Access = .owner, isClaim: Bool = false
        ) {
            self.name = name
            self.type = type
            self.isList = isList
            self.maxLength = maxLength
            self.maxItems = maxItems
            self.maxBytes = maxBytes
            self.access = access
            self.isClaim = isClaim
        }
    }

    /// What a declared field holds (each item, for a list).
    public enum ValueType: Sendable, Hashable {
        case string, int, float, boolean, date, object
        /// An enum declared in the fields file: its values.
        case enumeration(name: String, values: [String])
    }

    /// Who reads and writes a declared field.
    public enum Access: Sendable, Hashable {
        /// The owner and the master key.
        case owner
        /// `@serverOnly`: the owner reads it, only the master key writes it.
        case serverOnly
        /// `@hidden`: only the master key reads and writes it.
        case hidden
    }

    /// `@maxLength`'s default.
    public static let defaultMaxLength = 1024
    /// `@maxItems`' default.
    public static let defaultMaxItems = 100
    /// `@maxBytes`' default.
    public static let defaultMaxBytes = 16_384
    /// A user's declared fields together, as JSON, at most (what is stored: values of fields no
    /// longer declared count too).
    public static let maxTotalBytes = 65_536
    /// Declared fields at most.
    public static let maxFields = 100
    /// `displayName`: characters after trimming.
    public static let displayNameCharacters = 256
    /// `photoURL`: bytes.
    public static let photoURLBytes = 2048
    /// The JWT claim names a declared field may not take (registered and OpenID Connect claims
    /// an access token carries or may carry).
    public static let registeredClaimNames: [String] = [
        "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "sid", "amr", "acr", "azp", "scope", "client_id", "auth_time",
        "email", "email_verified", "name", "picture",
    ]

    /// The declared fields, in the order of the declarations.
    public let declared: [Field]
    private let indexes: [String: Int]

    /// No declared fields: `displayName` and `photoURL` only.
    public static let none = UserFields([])

    /// `declared` must have unique names (the fields file's reader checks that).
    public init(_ declared: [Field]) {
        self.declared = declared
        self.indexes = Dictionary(declared.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The declared field `name`, if any.
    public func field(_ name: String) -> Field? { indexes[name].map { declared[$0] } }

    /// The names of the fields copied into access tokens (`@claim`), in declaration order.
    public var claims: [String] { declared.filter(\.isClaim).map(\.name) }

    /// The `@claim` fields' values of `user`, by name (fields the user has no value of are absent).
    public func claimValues(of user: User) -> JSONObject {
        var values = JSONObject()
        for name in claims { if let value = user.fields[name], !value.isNull { values[name] = value } }
        return values
    }


    // MARK: Checking input

    /// `profile` (the built-in and declared fields a sign-up or `updateUser` gives, by name; null
    /// clears one) checked: 119 for a `@serverOnly` or `@hidden` field without the master key,
    /// before anything else; 142 for a value past its rule. A `displayName` is kept trimmed.
    public func check(_ profile: JSONObject, isMaster: Bool) throws(AuthError) -> ProfileChange {
        if !isMaster {
            for name in profile.keys where field(name).map({ $0.access != .owner }) ?? false {
                throw .fieldNotWritable(field: name)
            }
        }
        var checked = JSONObject(minimumCapacity: profile.count)
        for (name, value) in zip(profile.keys, profile.values) {
            if case .null = value {
                checked[name] = .null
                continue
            }
            switch name {
            case ProfileChange.displayName:
                checked[name] = .string(try Self.checkDisplayName(value))
            case ProfileChange.photoURL:
                checked[name] = .string(try Self.checkPhotoURL(value))
            default:
                guard let field = field(name) else { throw .internalError(detail: "no user field named \(name)") }
                try field.check(value)
                checked[name] = value
            }
        }
        return ProfileChange(values: checked)
    }

    /// A display name trimmed of surrounding white space: 1 to 256 characters, no NUL.
    static func checkDisplayName(_ value: JSON) throws(AuthError) -> String {
        guard case .string(let text) = value else { throw .internalError(detail: "displayName is not a string") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .displayNameEmpty }
        // `dropFirst` walks at most that many characters: no count of a huge string.
        guard trimmed.dropFirst(displayNameCharacters).isEmpty else {
            throw .tooLong(field: ProfileChange.displayName, limit: "\(displayNameCharacters) characters")
        }
        guard !trimmed.contains("\0") else { throw .nulCharacter(field: ProfileChange.displayName) }
        return trimmed
    }

    /// An absolute `https://` URL with a host, or `http://` on a loopback host (`localhost`,
    /// 127.0.0.0/8, ::1), at most 2,048 bytes, without white space or control characters.
    static func checkPhotoURL(_ value: JSON) throws(AuthError) -> String {
        guard case .string(let text) = value else { throw .internalError(detail: "photoURL is not a string") }
        guard text.utf8.count <= photoURLBytes else { throw .tooLong(field: ProfileChange.photoURL, limit: "\(photoURLBytes) bytes") }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            var host = components.host, !host.isEmpty
        else { throw .photoURLNotHTTPS }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        switch scheme {
        case "https": return text
        case "http" where host.lowercased() == "localhost" || IPAddress(host)?.isLoopback == true: return text
        default: throw .photoURLNotHTTPS
        }
    }
}

extension UserFields.Field {
    /// This field's value of `user` as a caller sees it: nil (null) for a `@hidden` field unless
    /// `isMaster` (asked only then).
    public func value(of user: User, isMaster: @autoclosure () -> Bool) -> JSON? {
        if access == .hidden && !isMaster() { return nil }
        return user.fieldValue(name)
    }

    /// Checks a non-null value of this field, of its type already: 142 past a limit.
    func check(_ value: JSON) throws(AuthError) {
        if isList {
            guard case .array(let items) = value else { throw .internalError(detail: "\(name) is not a list") }
            guard items.count <= maxItems else { throw .tooManyItems(field: name, limit: maxItems) }
            for item in items { try checkItem(item) }
        } else {
            try checkItem(value)
        }
    }

    private func checkItem(_ value: JSON) throws(AuthError) {
        switch (type, value) {
        case (.string, .string(let text)):
            guard text.dropFirst(maxLength).isEmpty else { throw .tooLong(field: name, limit: "\(maxLength) characters") }
            guard !text.contains("\0") else { throw .nulCharacter(field: name) }
        case (.object, .object):
            guard value.serialized().count <= maxBytes else { throw .tooLarge(field: name, bytes: maxBytes) }
            guard !Self.containsNUL(value) else { throw .nulCharacter(field: name) }
        default:
            break
        }
    }

    /// Whether a string or key in `value` holds a NUL character, which PostgreSQL's `jsonb` cannot store.
    private static func containsNUL(_ value: JSON) -> Bool {
        switch value {
        case .string(let text): text.contains("\0")
        case .array(let items): items.contains(where: containsNUL)
        case .object(let object): object.keys.contains { $0.contains("\0") } || object.values.contains(where: containsNUL)
        default: false
        }
    }
}
