/// SQLSTATE codes this layer and its callers recognise (PostgreSQL manual, Appendix A).
public enum SQLState {
    /// 23505 unique_violation.
    public static let uniqueViolation = "23505"
    /// 23503 foreign_key_violation.
    public static let foreignKeyViolation = "23503"
    /// 23502 not_null_violation.
    public static let notNullViolation = "23502"
    /// 23514 check_violation.
    public static let checkViolation = "23514"
    /// 57014 query_canceled (also raised by `statement_timeout`).
    public static let queryCanceled = "57014"
    /// 57P01 admin_shutdown.
    public static let adminShutdown = "57P01"
    /// 40001 serialization_failure.
    public static let serializationFailure = "40001"
    /// 40P01 deadlock_detected.
    public static let deadlockDetected = "40P01"
    /// 25006 read_only_sql_transaction: a write sent to a standby (or to a server with
    /// `default_transaction_read_only` on).
    public static let readOnlySQLTransaction = "25006"
    /// 55P03 lock_not_available (`NOWAIT`, `lock_timeout`).
    public static let lockNotAvailable = "55P03"

    private static let names: [String: String] = [
        "23505": "unique_violation", "23503": "foreign_key_violation", "23502": "not_null_violation",
        "23514": "check_violation", "23P01": "exclusion_violation", "22P02": "invalid_text_representation",
        "22001": "string_data_right_truncation", "22003": "numeric_value_out_of_range",
        "22007": "invalid_datetime_format", "22008": "datetime_field_overflow", "22021": "character_not_in_repertoire",
        "22P05": "untranslatable_character", "25P02": "in_failed_sql_transaction", "25006": "read_only_sql_transaction", "40001": "serialization_failure",
        "40P01": "deadlock_detected", "42601": "syntax_error", "42501": "insufficient_privilege",
        "42P01": "undefined_table", "42703": "undefined_column", "42883": "undefined_function",
        "42804": "datatype_mismatch", "42P07": "duplicate_table", "42710": "duplicate_object",
        "42P04": "duplicate_database", "3D000": "invalid_catalog_name", "53300": "too_many_connections",
        "55P03": "lock_not_available", "57014": "query_canceled", "57P01": "admin_shutdown",
        "57P02": "crash_shutdown", "57P03": "cannot_connect_now", "08000": "connection_exception",
        "08003": "connection_does_not_exist", "08006": "connection_failure", "08001": "sqlclient_unable_to_establish_sqlconnection",
        "08P01": "protocol_violation", "0A000": "feature_not_supported", "28000": "invalid_authorization_specification",
        "28P01": "invalid_password", "53100": "disk_full", "53200": "out_of_memory", "58000": "system_error",
        "58030": "io_error", "58P01": "undefined_file", "58P02": "duplicate_file",
    ]

    /// The condition name of a SQLSTATE, when known.
    public static func conditionName(_ code: String) -> String? { names[code] }

    /// Whether PostgreSQL builds messages of this SQLSTATE from identifiers only (no data values),
    /// so that a redacted description may show them. Class 22 (data exception) messages quote input
    /// values (`invalid input syntax for type integer: "..."`), and user-raised errors (P0) may say
    /// anything: those are withheld. System errors (58: a file the server could not open, read or
    /// write) name the file and the operating system's reason, which an operator needs.
    static func messageIsIdentifierOnly(_ code: String) -> Bool {
        let safeClasses: Set<Substring> = ["08", "0A", "23", "25", "28", "3D", "40", "42", "53", "55", "57", "58"]
        return safeClasses.contains(code.prefix(2))
    }
}
