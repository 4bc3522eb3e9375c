// PostgresTests: filled in by its issue.
