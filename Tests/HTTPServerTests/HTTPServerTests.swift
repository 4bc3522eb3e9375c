// HTTPServerTests: filled in by its issue.
