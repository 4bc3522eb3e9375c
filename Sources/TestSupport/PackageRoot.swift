import Foundation

/// The package's root directory, found from this file's path
/// (`<root>/Sources/TestSupport/PackageRoot.swift`): for tests that read the repository's files
/// (`schema.graphql`) or its build products.
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
