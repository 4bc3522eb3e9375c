import Foundation
import GatehouseServer
@testable import Providers
import ServerTestSupport
import TestSupport
import Testing

@Suite struct ProviderConfigurationTests {
    @Test(arguments: [nil, "", "  \n"])
    func unsetMeansAnonymousOnly(_ setting: String?) throws {
        let configuration = try ProviderConfiguration.parse(setting)
        #expect(configuration.anonymousEnabled)
        #expect(configuration.names.isEmpty)
    }

    @Test func theContractsExample() throws {
        let configuration = try ProviderConfiguration.parse("""
            {
              "anonymous": {"enabled": true},
              "google": {"client_ids": ["123-abc.apps.googleusercontent.com"]},
              "apple":  {"client_ids": ["com.example.app"]},
              "acme":   {"issuer": "https://login.acme.example", "jwks_uri": "https://login.acme.example/jwks",
                         "client_ids": ["gatehouse"], "token_field": "id_token"}
            }
            """)
        #expect(configuration.anonymousEnabled)
        #expect(configuration.names == ["acme", "apple", "google"])
        #expect(configuration.tokenProviders["google"] == .init(
            issuer: "https://accounts.google.com", issuerAliases: ["accounts.google.com"],
            jwksURI: "https://www.googleapis.com/oauth2/v3/certs",
            clientIDs: ["123-abc.apps.googleusercontent.com"], tokenField: "id_token"))
        #expect(configuration.tokenProviders["apple"] == .init(
            issuer: "https://appleid.apple.com", jwksURI: "https://appleid.apple.com/auth/keys",
            clientIDs: ["com.example.app"], tokenField: "token"))
        #expect(configuration.tokenProviders["acme"] == .init(
            issuer: "https://login.acme.example", jwksURI: "https://login.acme.example/jwks",
            clientIDs: ["gatehouse"], tokenField: "id_token"))
    }

    @Test func wellKnownProvidersMayBeOverriddenAndAnonymousTurnedOff() throws {
        let configuration = try ProviderConfiguration.parse("""
            {"apple": {"issuer": "http://127.0.0.1:9/", "jwks_uri": "http://127.0.0.1:9/keys", "client_ids": ["a", "b"], "token_field": "id_token"}}
            """)
        #expect(!configuration.anonymousEnabled, "a configuration without anonymous turns it off")
        #expect(configuration.tokenProviders["apple"] == .init(
            issuer: "http://127.0.0.1:9/", jwksURI: "http://127.0.0.1:9/keys", clientIDs: ["a", "b"], tokenField: "id_token"))
        #expect(try !ProviderConfiguration.parse(#"{"anonymous": {"enabled": false}}"#).anonymousEnabled)
    }

    @Test func readsAFile() throws {
        let directory = TemporaryDirectory.make(prefix: "gh-providers")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(#"{"google": {"client_ids": ["x"]}}"#.utf8).write(to: URL(fileURLWithPath: directory + "/providers.json"))
        #expect(try ProviderConfiguration.parse("@" + directory + "/providers.json").names == ["google"])
        let error = #expect(throws: ProviderConfigurationError.self) { try ProviderConfiguration.parse("@" + directory + "/absent.json") }
        #expect(error?.description == "cannot read the file \(directory)/absent.json")
    }

    @Test(arguments: [
        ("{", "not valid JSON: "),
        ("[]", #"must be a JSON object of providers, e.g. {"anonymous": {"enabled": true}}"#),
        (#"{"anonymous": true}"#, #"provider "anonymous": must be an object"#),
        (#"{"anonymous": {}}"#, #"provider "anonymous": "enabled" is missing (true or false)"#),
        (#"{"anonymous": {"enabled": "yes"}}"#, #"provider "anonymous": "enabled" must be true or false"#),
        (#"{"anonymous": {"enabled": true, "client_ids": ["x"]}}"#, #"provider "anonymous": unknown field "client_ids" (allowed: "enabled")"#),
        (#"{"google": {}}"#, #"provider "google": "client_ids" is missing (the app's client ids that tokens must be issued to)"#),
        (#"{"apple": {"client_ids": []}}"#, #"provider "apple": "client_ids" must be a non-empty array of strings"#),
        (#"{"apple": {"client_ids": "com.example.app"}}"#, #"provider "apple": "client_ids" must be a non-empty array of strings"#),
        (#"{"apple": {"client_ids": ["ok", ""]}}"#, #"provider "apple": "client_ids" must hold only non-empty strings"#),
        (#"{"google": {"client_ids": ["x"], "audience": "y"}}"#,
         #"provider "google": unknown field "audience" (allowed: "client_ids", "issuer", "jwks_uri", "token_field")"#),
        (#"{"acme": {"jwks_uri": "https://a.example/jwks", "client_ids": ["x"]}}"#, #"provider "acme": "issuer" is missing"#),
        (#"{"acme": {"issuer": "https://a.example", "client_ids": ["x"]}}"#, #"provider "acme": "jwks_uri" is missing"#),
        (#"{"acme": {"issuer": "https://a.example", "jwks_uri": "https://a.example/jwks"}}"#, #"provider "acme": "client_ids" is missing"#),
        (#"{"acme": {"issuer": "", "jwks_uri": "https://a.example/jwks", "client_ids": ["x"]}}"#, #"provider "acme": "issuer" must be a non-empty string"#),
        (#"{"acme": {"issuer": "https://a.example", "jwks_uri": 5, "client_ids": ["x"]}}"#, #"provider "acme": "jwks_uri" must be a non-empty string"#),
        (#"{"google": {"client_ids": ["x"], "jwks_uri": "http://keys.example/jwks"}}"#,
         #"provider "google": "jwks_uri": "http://keys.example/jwks" must use https (plain http only to a loopback address)"#),
        (#"{"acme": {"issuer": "https://a.example", "jwks_uri": "https://a.example/jwks", "client_ids": ["x"], "token_field": "id"}}"#,
         #"provider "acme": "token_field" cannot be "id""#),
        (#"{"google": "yes"}"#, #"provider "google": must be an object"#),
        (#"{"": {}}"#, "a provider's name is empty"),
    ])
    func errorsNameTheProviderAndField(_ setting: String, _ message: String) {
        let error = #expect(throws: ProviderConfigurationError.self) { try ProviderConfiguration.parse(setting) }
        #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test func aBadConfigurationStopsTheServerStartWithTheMessage() {
        var settings = Settings()
        settings.authProviders = #"{"google": {}}"#
        settings.port = 0
        let error = #expect(throws: GatehouseServer.StartError.self) { try GatehouseServer(settings: settings) }
        #expect(error?.description == #"GATEHOUSE_AUTH_PROVIDERS (--auth-providers): provider "google": "client_ids" is missing (the app's client ids that tokens must be issued to)"#)
    }
}

@Suite struct CacheControlTests {
    @Test(arguments: [
        ("max-age=300", 300.0), ("public, max-age=21600, must-revalidate", 21600), ("Max-Age = 60", 60), ("max-age=\"90\"", 90),
        ("max-age=0", 0), ("no-store", nil), ("max-age=-5", nil), ("max-age=soon", nil), ("", nil),
    ] as [(String, Double?)])
    func maxAge(_ header: String, _ seconds: Double?) {
        #expect(KeySetCache.maxAge(header) == seconds)
    }
}
