import Curl
import Foundation
import JSON

/// What is wrong with `GATEHOUSE_AUTH_PROVIDERS`, naming the provider and the field.
public struct ProviderConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The third-party log-in providers (`GATEHOUSE_AUTH_PROVIDERS`, whose JSON docs/providers.md
/// describes): `anonymous`, and token providers whose OpenID Connect ID tokens are checked.
public struct ProviderConfiguration: Sendable {
    /// One provider whose users sign in with an ID token.
    struct TokenProvider: Sendable, Equatable {
        var issuer: String
        /// Other spellings of the issuer the provider puts in `iss` (Google: without the scheme).
        var issuerAliases: [String] = []
        var jwksURI: String
        var clientIDs: [String]
        /// The member of `authData.<name>` holding the token.
        var tokenField: String
    }

    /// Whether `anonymous` log-in is on.
    public var anonymousEnabled: Bool
    /// The configured token providers, sorted.
    public var names: [String] { tokenProviders.keys.sorted() }
    var tokenProviders: [String: TokenProvider]

    /// Issuers, key URLs and token fields of the providers Gatehouse knows by name.
    private static let wellKnown: [String: (issuer: String, jwksURI: String, tokenField: String)] = [
        "google": ("https://accounts.google.com", "https://www.googleapis.com/oauth2/v3/certs", "id_token"),
        "apple": ("https://appleid.apple.com", "https://appleid.apple.com/auth/keys", "token"),
    ]

    /// Google's ID tokens say `accounts.google.com` or `https://accounts.google.com` (its OpenID
    /// Connect documentation): both are its issuer unless the configuration names another.
    private static let googleIssuerAlias = "accounts.google.com"

    /// JSON text inline, or "@/path/file.json"; nil/empty → {"anonymous": {"enabled": true}}. Errors name the
    /// provider and the missing or wrong field.
    ///
    /// A configuration without `anonymous` turns anonymous log-in off.
    public static func parse(_ setting: String?) throws(ProviderConfigurationError) -> ProviderConfiguration {
        guard var text = setting?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            return ProviderConfiguration(anonymousEnabled: true, tokenProviders: [:])
        }
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ProviderConfigurationError("cannot read the file \(path)")
            }
            text = String(decoding: contents, as: UTF8.self)
        }
        let json: JSON
        do { json = try JSONParser().parse(text) } catch {
            throw ProviderConfigurationError("not valid JSON: \(error)")
        }
        guard let providers = json.objectValue else {
            throw ProviderConfigurationError("must be a JSON object of providers, e.g. {\"anonymous\": {\"enabled\": true}}")
        }
        var configuration = ProviderConfiguration(anonymousEnabled: false, tokenProviders: [:])
        for (name, value) in providers {
            guard !name.isEmpty else { throw ProviderConfigurationError("a provider's name is empty") }
            guard let fields = value.objectValue else {
                throw ProviderConfigurationError("provider \"\(name)\": must be an object")
            }
            if name == "anonymous" {
                try refuseUnknown(fields, of: name, known: ["enabled"])
                guard let enabled = fields["enabled"] else {
                    throw ProviderConfigurationError("provider \"anonymous\": \"enabled\" is missing (true or false)")
                }
                guard let flag = enabled.boolValue else {
                    throw ProviderConfigurationError("provider \"anonymous\": \"enabled\" must be true or false")
                }
                configuration.anonymousEnabled = flag
            } else {
                configuration.tokenProviders[name] = try tokenProvider(name, fields)
            }
        }
        return configuration
    }

    private static func tokenProvider(_ name: String, _ fields: JSONObject) throws(ProviderConfigurationError) -> TokenProvider {
        try refuseUnknown(fields, of: name, known: ["issuer", "jwks_uri", "client_ids", "token_field"])
        let known = wellKnown[name]
        func string(_ field: String, default fallback: String?) throws(ProviderConfigurationError) -> String {
            guard let value = fields[field] else {
                if let fallback { return fallback }
                throw ProviderConfigurationError("provider \"\(name)\": \"\(field)\" is missing")
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw ProviderConfigurationError("provider \"\(name)\": \"\(field)\" must be a non-empty string")
            }
            return text
        }
        let issuer = try string("issuer", default: known?.issuer)
        let jwksURI = try string("jwks_uri", default: known?.jwksURI)
        do { try HTTPFetcher.validate(jwksURI) } catch {
            throw ProviderConfigurationError("provider \"\(name)\": \"jwks_uri\": \(error)")
        }
        let tokenField = try string("token_field", default: known?.tokenField ?? "id_token")
        guard tokenField != "id" && tokenField != "nonce" else {
            throw ProviderConfigurationError("provider \"\(name)\": \"token_field\" cannot be \"\(tokenField)\"")
        }
        guard let ids = fields["client_ids"] else {
            throw ProviderConfigurationError(
                "provider \"\(name)\": \"client_ids\" is missing (the app's client ids that tokens must be issued to)")
        }
        guard let array = ids.arrayValue, !array.isEmpty else {
            throw ProviderConfigurationError("provider \"\(name)\": \"client_ids\" must be a non-empty array of strings")
        }
        var clientIDs: [String] = []
        for id in array {
            guard let text = id.stringValue, !text.isEmpty else {
                throw ProviderConfigurationError("provider \"\(name)\": \"client_ids\" must hold only non-empty strings")
            }
            clientIDs.append(text)
        }
        var provider = TokenProvider(issuer: issuer, jwksURI: jwksURI, clientIDs: clientIDs, tokenField: tokenField)
        if name == "google" && issuer == known?.issuer { provider.issuerAliases = [googleIssuerAlias] }
        return provider
    }

    private static func refuseUnknown(_ fields: JSONObject, of name: String, known: Set<String>) throws(ProviderConfigurationError) {
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            let allowed = known.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw ProviderConfigurationError("provider \"\(name)\": unknown field \"\(unknown)\" (allowed: \(allowed))")
        }
    }
}
