import Foundation
import JSON

/// One page of `users(where, order, first, after)`: the conditions (all of them must hold), the
/// order, the page size and where the page starts.
public struct UserSearch: Sendable, Hashable {
    /// A text condition of `username` or `email`, compared ignoring case; both parts must hold
    /// when both are given.
    public struct Text: Sendable, Hashable {
        public var equalTo: String?
        /// A prefix.
        public var startsWith: String?

        public init(equalTo: String? = nil, startsWith: String? = nil) {
            self.equalTo = equalTo
            self.startsWith = startsWith
        }
    }

    /// The orders of the contract (`UserOrder`): each a total order, made so by the object id
    /// where the first key may repeat.
    public enum Order: String, Sendable, Hashable, CaseIterable {
        case createdAtAscending = "createdAt_ASC"
        case createdAtDescending = "createdAt_DESC"
        /// By the lower-cased username, which is unique.
        case usernameAscending = "username_ASC"
    }

    /// The object id (or a user's global id).
    public var objectId: String?
    public var username: Text?
    public var email: Text?
    public var emailVerified: Bool?
    public var disabled: Bool?
    /// Created strictly after this time.
    public var createdAfter: Date?
    /// Created strictly before this time.
    public var createdBefore: Date?
    /// The name of a provider linked to the user (`anonymous`, `google`, …).
    public var authProvider: String?
    /// Whether the user has TOTP on.
    public var mfa: Bool?
    public var order: Order
    /// 1 to ``maximumPageSize``.
    public var first: Int
    /// The cursor of the edge the page starts after (``UserSearchCursor``); nil: from the start.
    public var after: String?

    /// The largest page, and the page size when `first` is not given.
    public static let maximumPageSize = 100

    public init(
        objectId: String? = nil, username: Text? = nil, email: Text? = nil, emailVerified: Bool? = nil,
        disabled: Bool? = nil, createdAfter: Date? = nil, createdBefore: Date? = nil, authProvider: String? = nil,
        mfa: Bool? = nil, order: Order = .createdAtDescending, first: Int = UserSearch.maximumPageSize, after: String? = nil
    ) {
        self.objectId = objectId
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
        self.authProvider = authProvider
        self.mfa = mfa
        self.order = order
        self.first = first
        self.after = after
    }
}

/// One page of users found, in the search's order, each with its cursor.
public struct UserPage: Sendable {
    public var edges: [(user: User, cursor: String)]
    /// Whether users follow this page.
    public var hasNextPage: Bool
    /// Whether the page started after a cursor.
    public var hasPreviousPage: Bool

    public init(edges: [(user: User, cursor: String)], hasNextPage: Bool, hasPreviousPage: Bool) {
        self.edges = edges
        self.hasNextPage = hasNextPage
        self.hasPreviousPage = hasPreviousPage
    }
}

/// The position of a user in one order of the search, as an opaque cursor: the order and the
/// user's keys in it (creation time to the microsecond and object id, or the lower-cased
/// username), base64url-encoded. A page after a cursor starts at the first user past those keys,
/// so users inserted meanwhile never shift a later page: none is skipped or shown twice.
public struct UserSearchCursor: Sendable, Hashable {
    public enum Position: Sendable, Hashable {
        /// Microseconds since 1970 and the object id.
        case created(microseconds: Int64, objectId: String)
        /// The lower-cased username.
        case username(String)
    }

    public let order: UserSearch.Order
    public let position: Position

    public init(order: UserSearch.Order, position: Position) {
        self.order = order
        self.position = position
    }

    /// The cursor as clients get it.
    public var encoded: String {
        let text: String
        switch position {
        case .created(let microseconds, let objectId): text = "\(order.rawValue)\n\(microseconds)\n\(objectId)"
        case .username(let name): text = "\(order.rawValue)\n\(name)"
        }
        return Base64URL.encode(Array(text.utf8))
    }

    /// The cursor `text` encodes, if it is one of `order`.
    public init?(_ text: String, order: UserSearch.Order) {
        guard text.utf8.count <= 2048, let bytes = Base64URL.decode(text), let decoded = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = decoded.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.first.map(String.init) == order.rawValue else { return nil }
        switch order {
        case .createdAtAscending, .createdAtDescending:
            guard parts.count == 3, let microseconds = Int64(parts[1]), !parts[2].isEmpty else { return nil }
            self.init(order: order, position: .created(microseconds: microseconds, objectId: String(parts[2])))
        case .usernameAscending:
            guard parts.count == 2 else { return nil }
            self.init(order: order, position: .username(String(parts[1])))
        }
    }
}
