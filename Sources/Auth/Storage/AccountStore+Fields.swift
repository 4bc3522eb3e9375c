import Postgres

/// The stored values of declared user fields against the declarations the server starts with.
extension AccountStore {
    /// For each declared field, how many users hold a value its type does not take (one stored
    /// under an earlier declaration: a `String` where the field is now an `Int`, an enum value
    /// the enum no longer has); only fields with such users, in declaration order. One scan of
    /// the users that have declared values.
    func misfits(_ fields: UserFields) throws -> [(field: String, users: Int)] {
        guard !fields.declared.isEmpty else { return [] }
        var bindings = PostgresBindings()
        func bind(_ value: any PostgresEncodable) -> String {
            bindings.append(any: value)
            return "$\(bindings.count)"
        }
        var counts: [String] = []
        for field in fields.declared {
            let name = bind(field.name)
            let value = "u.custom_fields -> \(name)"
            let fits = field.isList
                ? """
                  (CASE WHEN jsonb_typeof(\(value)) = 'array' THEN NOT EXISTS (
                      SELECT 1 FROM jsonb_array_elements(\(value)) AS item(value)
                      WHERE NOT \(Self.fits(field.type, "item.value", bind: bind))) ELSE false END)
                  """
                : Self.fits(field.type, value, bind: bind)
            counts.append("count(*) FILTER (WHERE u.custom_fields ? \(name) AND NOT \(fits))::int")
        }
        // The SQL is assembled from fixed fragments; every name and enum value is a bound parameter.
        let query = PostgresQuery(
            unsafeSQL: "SELECT \(counts.joined(separator: ", ")) FROM users u WHERE u.custom_fields <> '{}'::jsonb",
            bindings: bindings)
        guard let row = try pool.withConnection(retry: .once, { connection in try connection.queryFirst(query) }) else { return [] }
        var misfits: [(field: String, users: Int)] = []
        for (index, field) in fields.declared.enumerated() {
            let users = try row.decode(Int.self, at: index)
            if users > 0 { misfits.append((field.name, users)) }
        }
        return misfits
    }

    /// SQL that is true when the `jsonb` expression `value` is a value of `type` as the GraphQL
    /// layer stores it (a `Date` in the form `2026-11-30T08:00:00.000Z`, an `Int` within 32 bits).
    /// `CASE` keeps a cast from ever seeing another JSON type.
    private static func fits(_ type: UserFields.ValueType, _ value: String, bind: (any PostgresEncodable) -> String) -> String {
        switch type {
        case .string: "(jsonb_typeof(\(value)) = 'string')"
        case .boolean: "(jsonb_typeof(\(value)) = 'boolean')"
        case .float: "(jsonb_typeof(\(value)) = 'number')"
        case .object: "(jsonb_typeof(\(value)) = 'object')"
        case .int:
            """
            (CASE WHEN jsonb_typeof(\(value)) = 'number' THEN (\(value))::numeric = trunc((\(value))::numeric)
                AND (\(value))::numeric BETWEEN -2147483648 AND 2147483647 ELSE false END)
            """
        case .date:
            "(CASE WHEN jsonb_typeof(\(value)) = 'string' THEN (\(value) #>> '{}') ~ \(bind(#"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#)) ELSE false END)"
        case .enumeration(_, let values):
            "(CASE WHEN jsonb_typeof(\(value)) = 'string' THEN (\(value) #>> '{}') = ANY(\(bind(PostgresArray(values)))) ELSE false END)"
        }
    }
}
