import Foundation
import JSON

// A stand-in for branch `providers` (anonymous users only), with the API of ../briefs/api18.md:
// the merge replaces this file with the real target.

/// `GATEHOUSE_AUTH_PROVIDERS`, parsed.
public struct ProviderConfiguration: Sendable {
    public var anonymousEnabled: Bool
    public var names: [String]

    public static func parse(_ setting: String?) throws(ProviderConfigurationError) -> ProviderConfiguration {
        guard let setting, !setting.isEmpty else { return ProviderConfiguration(anonymousEnabled: true, names: []) }
        guard let object = (try? JSON.parse(setting))?.objectValue else { throw ProviderConfigurationError(description: "not a JSON object") }
        var configuration = ProviderConfiguration(anonymousEnabled: false, names: [])
        for (name, value) in object {
            if name == "anonymous" {
                configuration.anonymousEnabled = value.objectValue?["enabled"]?.boolValue ?? true
            } else {
                configuration.names.append(name)
            }
        }
        return configuration
    }
}

public struct ProviderConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// The configured providers; token providers here refuse every token.
public final class ProviderRegistry: Sendable {
    let configuration: ProviderConfiguration

    public init(configuration: ProviderConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
    }

    public func isSupported(_ name: String) -> Bool {
        name == "anonymous" ? configuration.anonymousEnabled : configuration.names.contains(name)
    }

    public func verify(_ name: String, _ data: JSONObject) throws(ProviderFailure) -> String {
        guard isSupported(name) else { throw .unsupported }
        guard name == "anonymous" else { throw .invalid(detail: "no token verification in the stand-in") }
        guard let id = data["id"]?.stringValue, (1...128).contains(id.count) else {
            throw .invalid(detail: "anonymous id must be 1 to 128 characters")
        }
        return id
    }

    public func keySetFetchCount(_ name: String) -> Int { 0 }
}

public enum ProviderFailure: Error, Sendable, Equatable {
    case unsupported
    case invalid(detail: String)
}
