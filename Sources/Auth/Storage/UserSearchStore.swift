import Foundation
import Postgres

/// The statements of `users(where, order, first, after)`: one page by keyset (the cursor's keys,
/// never an offset), and the count of every user the conditions match.
///
/// Each condition is served by an index (migrations 16, 20 and 23): the object id by the primary
/// key, usernames and emails by `lower(…)` (equality: the unique indexes; prefixes: the
/// `text_pattern_ops` ones, an email prefix's ids and creation times from its index alone),
/// `emailVerified` with the creation order, disabled users by partial indexes (in creation order
/// and by username), the creation time and both creation orders by `(created_at, object_id)`, a
/// provider by `user_identities (provider, user_created_at, user_id)` and TOTP by
/// `user_totp (user_created_at, user_id)` in a creation order, by their user id indexes as a probe
/// per user in the username order. The statement is assembled from fixed fragments; every value the caller gave is a bound
/// parameter.
struct UserSearchStore: Sendable {
    let pool: Pool

    /// The users of one page, each with its keys in the search's order, and whether more follow.
    func page(_ search: UserSearch, after cursor: UserSearchCursor?) throws -> (users: [(User, UserSearchCursor)], more: Bool) {
        let query = Self.pageQuery(search, after: cursor)
        let rows = try pool.withConnection(retry: .once) { connection in
            try connection.transaction { transaction in
                try transaction.unsafeExecuteScript(Self.serialPlan)
                return try transaction.query(query)
            }
        }
        var users: [(User, UserSearchCursor)] = []
        for row in rows.prefix(search.first) {
            let user = try UserStore.user(row)
            let position: UserSearchCursor.Position = switch search.order {
            case .usernameAscending: .username(try row.decode(String.self, at: UserStore.userColumnCount + 1))
            case .createdAtAscending, .createdAtDescending:
                .created(microseconds: try row.decode(Int64.self, at: UserStore.userColumnCount), objectId: user.objectId)
            }
            users.append((user, UserSearchCursor(order: search.order, position: position)))
        }
        return (users, rows.count > search.first)
    }

    /// A page is planned without parallel workers. A page stops after its 101st row; the planner
    /// still chose, for a rare provider in the username order at 1,000,000 users, a Gather Merge of
    /// three processes walking the usernames, which took 36–44 ms where one process walking them
    /// takes 18–20 ms (on 2 cores, each worker's start and the merge cost more than they share).
    /// Counts keep their workers: they read every match.
    static let serialPlan = "SET LOCAL max_parallel_workers_per_gather = 0"

    /// How many users the conditions match (the cursor and the page size aside).
    func count(_ search: UserSearch) throws -> Int {
        let query = Self.countQuery(search)
        return try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst(query)?.decode(Int.self, at: 0) ?? 0
        }
    }

    /// The page's statement: the user columns, the creation time in microseconds and the
    /// lower-cased username (the cursor's keys), one row more than the page to tell whether more
    /// follow.
    static func pageQuery(_ search: UserSearch, after cursor: UserSearchCursor?) -> PostgresQuery {
        let source = search.order == .usernameAscending ? Source.users : Source(search)
        var builder = Builder(source: source)
        builder.conditions(of: search)
        if let cursor { builder.after(cursor) }
        let limit = builder.bind(Int64(search.first + 1))
        let (created, id) = source.userKeys
        let order = switch search.order {
        case .createdAtAscending: "\(created), \(id)"
        case .createdAtDescending: "\(created) DESC, \(id) DESC"
        case .usernameAscending: "lower(u.username)"
        }
        let columns = "SELECT \(UserStore.userColumns), (extract(epoch FROM u.created_at) * 1000000)::bigint, lower(u.username) FROM "
        if source == .users, search.email?.startsWith != nil, search.order != .usernameAscending {
            // The page's ids first, from `users_email_prefix_keys_idx` alone (migration 23), then
            // their rows: the matches' creation times come from the index, not from a row each.
            return PostgresQuery(
                unsafeSQL: columns + "users u WHERE u.object_id IN (SELECT u.object_id FROM users u" + builder.whereClause
                    + " ORDER BY " + order + " LIMIT " + limit + ") ORDER BY " + order,
                bindings: builder.bindings)
        }
        return PostgresQuery(
            unsafeSQL: columns + source.from(joiningUsers: true) + builder.whereClause + " ORDER BY " + order + " LIMIT " + limit,
            bindings: builder.bindings)
    }

    /// The count's statement: over a provider's ids or the TOTP secrets when the search has one,
    /// joined to the users only for a condition on their own columns.
    static func countQuery(_ search: UserSearch) -> PostgresQuery {
        let source = Source(search)
        var builder = Builder(source: source)
        builder.conditions(of: search)
        return PostgresQuery(
            unsafeSQL: "SELECT count(*) FROM " + source.from(joiningUsers: search.hasUserColumnCondition) + builder.whereClause,
            bindings: builder.bindings)
    }

    /// The table a statement reads its users from. A search for a provider's users (or for those
    /// with TOTP on) reads that table's rows, one per user (a user has one id per provider and
    /// one TOTP secret), by its index on the users' creation time (migration 20): a page in a
    /// creation order reads as many rows as it shows, and a count only the matches, whatever
    /// share of the users they are. An `EXISTS` probe per user instead, walking the users newest
    /// first, reads a hundred users per row shown for a provider of 1 % of them.
    enum Source: Equatable {
        /// `users u`; a provider or TOTP is an `EXISTS` probe per user.
        case users
        /// `user_identities d` of the search's provider.
        case identities
        /// `user_totp d`.
        case totp

        init(_ search: UserSearch) {
            self = search.authProvider != nil ? .identities : search.mfa == true ? .totp : .users
        }

        /// The `FROM` list: the table, joined to `users u` when `joiningUsers`.
        func from(joiningUsers: Bool) -> String {
            switch self {
            case .users: "users u"
            case .identities: "user_identities d" + (joiningUsers ? " JOIN users u ON u.object_id = d.user_id" : "")
            case .totp: "user_totp d" + (joiningUsers ? " JOIN users u ON u.object_id = d.user_id" : "")
            }
        }

        /// The user's creation time and object id in the table's columns, so that the order, the
        /// cursor and a creation time range bound its index.
        var userKeys: (created: String, id: String) {
            self == .users ? ("u.created_at", "u.object_id") : ("d.user_created_at", "d.user_id")
        }
    }

    /// SQL conditions from fixed fragments, with every value as a `$n` parameter.
    private struct Builder {
        let source: Source
        var conditions: [String] = []
        var bindings = PostgresBindings()

        init(source: Source) { self.source = source }

        /// Binds `value` and gives its placeholder.
        mutating func bind<Value: PostgresEncodable>(_ value: Value) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }

        var whereClause: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }

        mutating func conditions(of search: UserSearch) {
            if let objectId = search.objectId {
                conditions.append("u.object_id = " + bind(objectId))
            }
            text("u.username", search.username)
            text("u.email", search.email)
            if let verified = search.emailVerified {
                conditions.append("u.email_verified = " + bind(verified))
            }
            if let disabled = search.disabled {
                conditions.append(disabled ? "u.disabled_at IS NOT NULL" : "u.disabled_at IS NULL")
            }
            let (created, id) = source.userKeys
            if let after = search.createdAfter {
                conditions.append("\(created) > " + bind(after))
            }
            if let before = search.createdBefore {
                conditions.append("\(created) < " + bind(before))
            }
            if let provider = search.authProvider {
                if source == .identities {
                    conditions.append("d.provider = " + bind(provider))
                } else {
                    conditions.append("EXISTS (SELECT 1 FROM user_identities i WHERE i.provider = " + bind(provider)
                        + " AND i.user_id = \(id))")
                }
            }
            if let mfa = search.mfa, source != .totp {
                conditions.append((mfa ? "" : "NOT ") + "EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = \(id))")
            }
        }

        /// `column` compared ignoring case: equal (the unique `lower(…)` index), or starting with a
        /// prefix (`LIKE` on the `text_pattern_ops` index; the prefix's own `%`, `_` and `\` escaped).
        private mutating func text(_ column: String, _ condition: UserSearch.Text?) {
            guard let condition else { return }
            if let equal = condition.equalTo {
                conditions.append("lower(\(column)) = lower(" + bind(equal) + ")")
            }
            if let prefix = condition.startsWith {
                conditions.append("lower(\(column)) LIKE lower(" + bind(Self.likeEscaped(prefix)) + ") || '%'")
            }
        }

        /// Past the cursor's keys, in its order.
        mutating func after(_ cursor: UserSearchCursor) {
            switch cursor.position {
            case .created(let microseconds, let objectId):
                let time = "('epoch'::timestamptz + " + bind(microseconds) + " * interval '1 microsecond')"
                let comparison = cursor.order == .createdAtAscending ? ">" : "<"
                let (created, id) = source.userKeys
                conditions.append("(\(created), \(id)) \(comparison) (" + time + ", " + bind(objectId) + ")")
            case .username(let name):
                conditions.append("lower(u.username) > " + bind(name))
            }
        }

        /// `text` with `LIKE`'s wildcards and escape character escaped (`\` is the default escape).
        static func likeEscaped(_ text: String) -> String {
            var escaped = ""
            for character in text {
                if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped
        }
    }
}

extension UserSearch {
    /// Whether a condition reads a column of `users` itself, beyond the creation time (which the
    /// provider ids and TOTP secrets carry as their users').
    fileprivate var hasUserColumnCondition: Bool {
        objectId != nil || username != nil || email != nil || emailVerified != nil || disabled != nil
    }
}
