import Foundation

/// Where and as what app a ``GatehouseAuth`` talks to the server.
public struct GatehouseConfiguration: Sendable, Hashable {
    /// The GraphQL endpoint, e.g. `http://127.0.0.1:1337/graphql`. A URL with no path
    /// (`http://host:1337`) gets `/graphql` appended.
    public var serverURL: URL
    /// Sent as `X-Parse-Application-Id`; needed when the server has an app id configured.
    public var applicationId: String?
    /// Sent as `X-Parse-Installation-Id`. `nil` (the default): a random id is generated the first
    /// time and kept in the session store, so it stays the same across launches.
    public var installationId: String?

    /// Creates a configuration.
    public init(serverURL: URL, applicationId: String? = nil, installationId: String? = nil) {
        if serverURL.path.isEmpty || serverURL.path == "/" {
            self.serverURL = serverURL.appendingPathComponent("graphql")
        } else {
            self.serverURL = serverURL
        }
        self.applicationId = applicationId
        self.installationId = installationId
    }
}
