import Foundation
import JSON
import Sodium
import Signatures

/// The OAuth 2.1 / OpenID Connect provider's settings (docs/oauth.md): the static clients
/// (`GATEHOUSE_OAUTH_CLIENTS`), whether clients may register themselves
/// (`GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION`), and the token endpoint's rate limit.
public struct OAuthPolicy: Sendable, Hashable {
    /// The clients configured at start-up, each id once.
    public var clients: [OAuthClient]
    /// RFC 7591 registration at `POST /oauth/register`.
    public var dynamicRegistration: Bool
    /// Token endpoint requests per client and per client network per minute (0: no limit).
    public var tokenRequestsPerMinute: Int

    public init(clients: [OAuthClient] = [], dynamicRegistration: Bool = false, tokenRequestsPerMinute: Int = 600) {
        self.clients = clients
        self.dynamicRegistration = dynamicRegistration
        self.tokenRequestsPerMinute = tokenRequestsPerMinute
    }

    /// The scopes this provider knows, in the order the consent screen lists them.
    public static let knownScopes = ["openid", "profile", "email", "offline_access"]

    /// Seconds an authorization code lives (OAuth 2.1 §4.1.2: short, single use).
    public static let codeLifetime = 60

    /// The longest `state`, `nonce` or `resource`, in UTF-8 bytes: each is stored or sent back.
    public static let parameterLimit = 1024

    /// The static clients from `GATEHOUSE_OAUTH_CLIENTS`: a JSON array of objects with
    /// `client_id`, `client_secret` (absent for a public client), `redirect_uris`, `name`,
    /// `scopes`, `first_party` and `resources`. Each of `resources` must be one of `audiences`
    /// (the audiences access tokens are issued for) when they are given. Every mistake names the
    /// entry (by index) and the field.
    public static func parseClients(_ text: String, audiences: [String]? = nil) throws(OAuthClientsError) -> [OAuthClient] {
        guard let json = try? JSON.parse(text) else {
            throw OAuthClientsError("GATEHOUSE_OAUTH_CLIENTS is not JSON: it must be an array of client objects.")
        }
        guard let entries = json.arrayValue else {
            throw OAuthClientsError("GATEHOUSE_OAUTH_CLIENTS must be a JSON array of client objects.")
        }
        var clients: [OAuthClient] = []
        let fields: Set<String> = ["client_id", "client_secret", "redirect_uris", "name", "scopes", "first_party", "resources"]
        for (index, entry) in entries.enumerated() {
            let entryName = "GATEHOUSE_OAUTH_CLIENTS[\(index)]"
            func problem(_ field: String, _ text: String) -> OAuthClientsError {
                OAuthClientsError("\(entryName).\(field) \(text)")
            }
            guard let object = entry.objectValue else { throw OAuthClientsError("\(entryName) must be a JSON object.") }
            if let unknown = object.map({ $0.0 }).first(where: { !fields.contains($0) }) {
                throw OAuthClientsError("\(entryName) has an unknown field \"\(unknown)\" (known: client_id, client_secret, redirect_uris, name, scopes, first_party, resources).")
            }
            guard let id = object["client_id"]?.stringValue, OAuthClient.isValidId(id) else {
                throw problem("client_id", "must be 1 to 100 characters of letters, digits, `-`, `_` and `.`.")
            }
            guard !clients.contains(where: { $0.clientId == id }) else {
                throw problem("client_id", "\"\(id)\" is given twice.")
            }
            var secretDigest: [UInt8]? = nil
            if let secret = object["client_secret"], !secret.isNull {
                guard let text = secret.stringValue, text.utf8.count >= 16, text.utf8.count <= 256 else {
                    throw problem("client_secret", "must be a string of 16 to 256 bytes (make one with `openssl rand -hex 32`), or absent for a public client.")
                }
                secretDigest = SHA256.digest(text)
            }
            guard let uris = object["redirect_uris"]?.arrayValue, !uris.isEmpty else {
                throw problem("redirect_uris", "must be a non-empty array of URLs.")
            }
            var redirectURIs: [String] = []
            for (uriIndex, uri) in uris.enumerated() {
                guard let text = uri.stringValue else { throw problem("redirect_uris[\(uriIndex)]", "must be a string.") }
                if let reason = OAuthClient.redirectURIProblem(text) { throw problem("redirect_uris[\(uriIndex)]", reason) }
                redirectURIs.append(text)
            }
            guard let name = object["name"]?.stringValue, !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 100 else {
                throw problem("name", "must be the app's name as users see it on the consent screen (1 to 100 characters).")
            }
            var scopes = knownScopes
            if let listed = object["scopes"] {
                guard let array = listed.arrayValue, !array.isEmpty else {
                    throw problem("scopes", "must be a non-empty array of scopes (\(knownScopes.joined(separator: ", "))).")
                }
                scopes = []
                for (scopeIndex, scope) in array.enumerated() {
                    guard let text = scope.stringValue, knownScopes.contains(text) else {
                        throw problem("scopes[\(scopeIndex)]", "must be one of \(knownScopes.joined(separator: ", ")).")
                    }
                    if !scopes.contains(text) { scopes.append(text) }
                }
            }
            var firstParty = false
            if let flag = object["first_party"], !flag.isNull {
                guard let value = flag.boolValue else { throw problem("first_party", "must be true or false.") }
                firstParty = value
            }
            var resources: [String] = []
            if let listed = object["resources"], !listed.isNull {
                guard let array = listed.arrayValue else {
                    throw problem("resources", "must be an array of the audiences (RFC 8707 resource URIs) this client may ask tokens for.")
                }
                for (resourceIndex, resource) in array.enumerated() {
                    guard let text = resource.stringValue, OAuthClient.isResourceURI(text) else {
                        throw problem("resources[\(resourceIndex)]", "must be an absolute URI without a fragment, of at most \(parameterLimit) bytes.")
                    }
                    if let audiences, !audiences.contains(text) {
                        throw problem(
                            "resources[\(resourceIndex)]",
                            "\"\(text)\" is not an audience access tokens are issued for (GATEHOUSE_ACCESS_TOKEN_AUDIENCES, or the issuer when unset).")
                    }
                    if !resources.contains(text) { resources.append(text) }
                }
            }
            clients.append(OAuthClient(
                clientId: id, secretDigest: secretDigest, redirectURIs: redirectURIs, name: name, scopes: scopes,
                firstParty: firstParty, resources: resources))
        }
        return clients
    }
}

/// A mistake in `GATEHOUSE_OAUTH_CLIENTS`, naming the entry and the field.
public struct OAuthClientsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A client of the OAuth provider: configured (``OAuthPolicy/clients``) or registered (RFC 7591).
public struct OAuthClient: Sendable, Hashable {
    public var clientId: String
    /// SHA-256 of the client secret; nil for a public client (`token_endpoint_auth_method: none`).
    public var secretDigest: [UInt8]?
    /// The redirect URIs, each compared exactly.
    public var redirectURIs: [String]
    /// The name the consent screen and the user's list of apps show.
    public var name: String
    /// The scopes it may ask for.
    public var scopes: [String]
    /// A first-party client needs no consent and always gets a refresh token.
    public var firstParty: Bool
    /// The audiences (RFC 8707 `resource`) it may ask access tokens for; with none, its access
    /// tokens' `aud` is its own client id. Only a configured client has any.
    public var resources: [String]
    /// Registered by itself (RFC 7591) rather than configured by the operator: its name and
    /// redirect URIs are unverified, so errors are not redirected to it before the user signs in.
    public var registered: Bool

    public init(
        clientId: String, secretDigest: [UInt8]?, redirectURIs: [String], name: String, scopes: [String], firstParty: Bool,
        resources: [String] = [], registered: Bool = false
    ) {
        self.clientId = clientId
        self.secretDigest = secretDigest
        self.redirectURIs = redirectURIs
        self.name = name
        self.scopes = scopes
        self.firstParty = firstParty
        self.resources = resources
        self.registered = registered
    }

    /// An RFC 8707 resource: an absolute URI without a fragment, at most
    /// ``OAuthPolicy/parameterLimit`` bytes.
    static func isResourceURI(_ text: String) -> Bool {
        text.utf8.count <= OAuthPolicy.parameterLimit && URLComponents(string: text)?.scheme != nil && !text.contains("#")
    }

    /// Whether it authenticates at the token endpoint (`client_secret_basic`).
    public var isConfidential: Bool { secretDigest != nil }

    /// Whether `secret` is its secret (constant time over the digests).
    public func accepts(secret: String) -> Bool {
        guard let secretDigest else { return false }
        return ConstantTime.equals(SHA256.digest(secret), secretDigest)
    }

    /// A configured client id: letters, digits, `-`, `_`, `.`; 1 to 100 of them.
    static func isValidId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 100
            && id.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }

    /// Why `uri` cannot be a redirect URI, nil when it can: an absolute `https` URL, or `http` on a
    /// loopback IP literal (`127.0.0.1` or `[::1]`; OAuth 2.1 §1.5, RFC 8252 §8.3: not `localhost`,
    /// which a resolver may send elsewhere); its host a plain DNS name or IP literal as written
    /// (no percent-encoding, no user info), since the authorization page's CSP names it; no
    /// fragment (RFC 6749 §3.1.2); at most 2000 bytes.
    public static func redirectURIProblem(_ uri: String) -> String? {
        guard uri.utf8.count <= 2000 else { return "must be at most 2000 bytes." }
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "must be an absolute URL (https://host/path)." }
        guard components.fragment == nil else { return "must not have a fragment (#)." }
        guard let written = writtenOrigin(uri) else {
            return "must have a plain host: a DNS name (letters, digits, `-` and `.`) or an IP address, with no percent-encoding or user name."
        }
        switch scheme {
        case "https": return nil
        case "http":
            if ["127.0.0.1", "[::1]"].contains(written.host) { return nil }
            return "must use https (http only on a loopback address: 127.0.0.1 or [::1])."
        default:
            return "must use https (http only on a loopback address)."
        }
    }

    /// `scheme://host[:port]` of an absolute URL exactly as written (nothing decoded or normalized),
    /// and its host; nil unless the scheme is RFC 3986's (a letter, then letters, digits, `+`, `-`
    /// and `.`) and the host a DNS name of letters, digits, `-` and `.`, or a bracketed IPv6
    /// literal, with at most a port of digits after it.
    public static func writtenOrigin(_ uri: String) -> (origin: String, host: String)? {
        let bytes = Array(uri.utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isLetter(bytes[0]),
            bytes[..<colon].allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
            bytes[colon...].starts(with: Array("://".utf8))
        else { return nil }
        let start = colon + 3
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        let authority = bytes[start..<end]
        let host: ArraySlice<UInt8>
        let rest: ArraySlice<UInt8>
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[...close]
            rest = authority[(close + 1)...]
            let inner = host.dropFirst().dropLast()
            guard inner.contains(UInt8(ascii: ":")), inner.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return nil }
        } else {
            let hostEnd = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
            host = authority[..<hostEnd]
            rest = authority[hostEnd...]
            guard isDNSName(host) else { return nil }
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == UInt8(ascii: ":"), (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        }
        return (String(decoding: bytes[..<end], as: UTF8.self), String(decoding: host, as: UTF8.self))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// Dot-separated labels of 1 to 63 letters, digits and `-`, at most 253 bytes (IPv4 addresses
    /// are such names too).
    private static func isDNSName(_ name: ArraySlice<UInt8>) -> Bool {
        guard !name.isEmpty, name.count <= 253 else { return false }
        return name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count)
                && label.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "-") }
        }
    }
}
