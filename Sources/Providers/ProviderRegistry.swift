import Curl
import Foundation
import JSON
import JWT

/// Checks third-party authData against the configured providers, with one key-set cache per
/// token provider: an ID token must be RS256 or ES256, signed by a key of the provider's key set,
/// with the configured issuer, an audience among its client ids, `sub` equal to the authData's
/// `id`, not expired nor issued in the future (60 seconds' leeway), and the nonce when one is
/// sent (docs/providers.md). Safe to use from any thread.
public final class ProviderRegistry: Sendable {
    /// The longest anonymous id.
    public static let maxAnonymousIdLength = 128
    private static let algorithms: Set<String> = ["RS256", "ES256"]

    private let configuration: ProviderConfiguration
    private let caches: [String: KeySetCache]
    private let now: @Sendable () -> Date

    public init(configuration: ProviderConfiguration, fetcher: HTTPFetcher = HTTPFetcher(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        caches = configuration.tokenProviders.mapValues { KeySetCache(url: $0.jwksURI, fetcher: fetcher) }
        self.now = now
    }

    /// Whether `name` is "anonymous" and enabled, or a configured token provider.
    public func isSupported(_ name: String) -> Bool {
        name == "anonymous" ? configuration.anonymousEnabled : configuration.tokenProviders[name] != nil
    }

    /// Checks `authData[name]` (the provider's object: id, the token at its token_field, optional nonce) and
    /// returns the provider's user id. anonymous: id of 1 to 128 characters, no token.
    ///
    /// `authData` is the whole authData object of the request (`{"<name>": {…}}`).
    public func verify(_ name: String, _ authData: JSONObject) throws(ProviderFailure) -> String {
        guard isSupported(name) else { throw .unsupported }
        guard let fields = authData[name]?.objectValue else { throw .invalid(detail: "authData.\(name) is not an object") }
        guard let id = fields["id"]?.stringValue, !id.isEmpty else {
            throw .invalid(detail: "authData.\(name).id is not a non-empty string")
        }
        guard let provider = configuration.tokenProviders[name], let cache = caches[name] else {
            guard id.count <= Self.maxAnonymousIdLength else {
                throw .invalid(detail: "authData.anonymous.id is longer than \(Self.maxAnonymousIdLength) characters")
            }
            return id
        }
        guard let compact = fields[provider.tokenField]?.stringValue, !compact.isEmpty else {
            throw .invalid(detail: "authData.\(name).\(provider.tokenField) is not a non-empty string")
        }
        var nonce: String?
        if let given = fields["nonce"], !given.isNull {
            guard let text = given.stringValue else { throw .invalid(detail: "authData.\(name).nonce is not a string") }
            nonce = text
        }
        let token: JSONWebToken
        do { token = try JSONWebToken(compact: compact) } catch { throw .invalid(detail: "token: \(error)") }
        // Refused before any key look-up, so a forged token never causes a fetch.
        guard Self.algorithms.contains(token.algorithm) else {
            throw .invalid(detail: "token algorithm \(ProviderFailure.quoted(token.algorithm)) is not RS256 or ES256")
        }
        let now = now()
        let key = try cache.key(id: token.keyId, now: now)
        do {
            try token.verifySignature(with: key)
            let stated = token.claims["iss"]?.stringValue
            let issuer = stated.flatMap { provider.issuerAliases.contains($0) ? $0 : nil } ?? provider.issuer
            try token.checkClaims(issuer: issuer, audiences: provider.clientIDs, subject: id, nonce: nonce, now: now)
        } catch {
            throw .invalid(detail: "token: \(error)")
        }
        return id
    }

    /// Key-set fetches so far for provider `name` (tests, metrics).
    public func keySetFetchCount(_ name: String) -> Int {
        caches[name]?.fetchCount ?? 0
    }
}
