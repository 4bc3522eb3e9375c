// SodiumTests: filled in by its issue.
