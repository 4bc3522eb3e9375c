/// A PostgreSQL type, identified by its OID (the built-in OIDs are fixed, `pg_type.dat`).
public struct PostgresDataType: Sendable, Hashable, CustomStringConvertible {
    /// The type's OID.
    public let oid: UInt32

    /// Wraps an OID.
    public init(oid: UInt32) { self.oid = oid }

    /// `bool`.
    public static let bool = PostgresDataType(oid: 16)
    /// `bytea`.
    public static let bytea = PostgresDataType(oid: 17)
    /// `name`.
    public static let name = PostgresDataType(oid: 19)
    /// `int8` (`bigint`).
    public static let int8 = PostgresDataType(oid: 20)
    /// `int2` (`smallint`).
    public static let int2 = PostgresDataType(oid: 21)
    /// `int4` (`integer`).
    public static let int4 = PostgresDataType(oid: 23)
    /// `text`.
    public static let text = PostgresDataType(oid: 25)
    /// `oid`.
    public static let oidType = PostgresDataType(oid: 26)
    /// `json`.
    public static let json = PostgresDataType(oid: 114)
    /// `float4` (`real`).
    public static let float4 = PostgresDataType(oid: 700)
    /// `float8` (`double precision`).
    public static let float8 = PostgresDataType(oid: 701)
    /// `unknown` (untyped literals).
    public static let unknown = PostgresDataType(oid: 705)
    /// `bpchar` (`char(n)`).
    public static let bpchar = PostgresDataType(oid: 1042)
    /// `varchar`.
    public static let varchar = PostgresDataType(oid: 1043)
    /// `timestamp` (without time zone).
    public static let timestamp = PostgresDataType(oid: 1114)
    /// `timestamptz`.
    public static let timestamptz = PostgresDataType(oid: 1184)
    /// `jsonb`.
    public static let jsonb = PostgresDataType(oid: 3802)

    private static let names: [UInt32: String] = [
        16: "bool", 17: "bytea", 19: "name", 20: "int8", 21: "int2", 23: "int4", 25: "text", 26: "oid",
        114: "json", 700: "float4", 701: "float8", 705: "unknown", 1042: "bpchar", 1043: "varchar",
        1114: "timestamp", 1184: "timestamptz", 3802: "jsonb", 1700: "numeric", 2950: "uuid", 2278: "void",
        1082: "date", 1186: "interval",
    ]

    /// The type's name for built-in types, else `oid <n>`.
    public var description: String { Self.names[oid] ?? "oid \(oid)" }
}
