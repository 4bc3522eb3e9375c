import Auth
import Curl
import Foundation
import JSON
import Signatures
import Sodium

/// The secret of a webhook endpoint or hook: `whsec_` and the base64 of 24 to 64 random bytes
/// (the Standard Webhooks form). The bytes are the HMAC key; the text is never logged.
struct WebhookSecret: Sendable, Hashable {
    /// The HMAC-SHA256 key.
    let key: [UInt8]
    /// The key made ready for signing.
    let signer: HMAC.SHA256Key

    static let prefix = "whsec_"
    static let keyBytes = 24...64

    /// The key of `text`; nil unless it is `whsec_` + base64 of 24–64 bytes.
    init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
            Self.keyBytes.contains(data.count)
        else { return nil }
        key = Array(data)
        signer = HMAC.SHA256Key(key)
    }

    static func == (a: WebhookSecret, b: WebhookSecret) -> Bool { a.key == b.key }

    func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// A new secret of 32 random bytes, as `gatehouse webhooks secret` prints it.
    static func generate() -> String {
        prefix + Data(SecureRandom.bytes(32)).base64EncodedString()
    }
}

/// A webhook endpoint of `GATEHOUSE_WEBHOOKS`.
struct WebhookEndpoint: Sendable, Hashable {
    /// Its place in the setting's list, from 0: the `endpoint` label of its metrics.
    var index: Int
    var url: String
    var secret: WebhookSecret
    /// The event types it takes; nil: all (`"*"`).
    var kinds: Set<AuthEvent.Kind>?
}

/// A hook of `GATEHOUSE_HOOKS`.
struct HookEndpoint: Sendable, Hashable {
    var url: String
    var secret: WebhookSecret
    /// 100–10,000; default 2,000.
    var timeoutMilliseconds: Int
    /// `onError`: `reject` (true, the default) or `allow`.
    var rejectsOnError: Bool
}

/// `GATEHOUSE_WEBHOOKS` and `GATEHOUSE_HOOKS`, parsed and checked: a mistake stops start-up with
/// a message naming the setting, the entry and the field (never a secret's value).
enum EventConfiguration {
    /// A mistake in one of the settings.
    struct Mistake: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let webhooksName = "GATEHOUSE_WEBHOOKS (--webhooks)"
    static let hooksName = "GATEHOUSE_HOOKS (--hooks)"

    /// The endpoints of `GATEHOUSE_WEBHOOKS` (JSON, or `@/path/file.json`); none when unset.
    static func webhooks(_ setting: String?) throws(Mistake) -> [WebhookEndpoint] {
        guard let json = try document(setting, webhooksName) else { return [] }
        guard case .array(let entries) = json else { throw Mistake("\(webhooksName) must be a JSON array of endpoints.") }
        var endpoints: [WebhookEndpoint] = []
        for (index, entry) in entries.enumerated() {
            let name = "\(webhooksName) entry \(index)"
            guard case .object(let object) = entry else { throw Mistake("\(name) must be an object with url, secret and events.") }
            try onlyKnownFields(object, ["url", "secret", "events"], name)
            let url = try url(object, name)
            let secret = try secret(object, name)
            guard case .array(let list)? = object["events"], !list.isEmpty else {
                throw Mistake("\(name), field \"events\": a non-empty array of event types, or [\"*\"] for all.")
            }
            var kinds: Set<AuthEvent.Kind>? = []
            for item in list {
                guard case .string(let type) = item else {
                    throw Mistake("\(name), field \"events\": each item must be an event type in quotes.")
                }
                if type == "*" {
                    kinds = nil
                } else if let kind = AuthEvent.Kind(rawValue: type), !kind.isAuditOnly {
                    kinds?.insert(kind)
                } else {
                    let known = AuthEvent.Kind.allCases.filter { !$0.isAuditOnly }.map(\.rawValue).joined(separator: ", ")
                    throw Mistake("\(name), field \"events\": unknown event type \"\(type.prefix(64))\" (known: \(known), or *).")
                }
            }
            if endpoints.contains(where: { $0.url == url }) {
                throw Mistake("\(name), field \"url\": the same URL as an earlier entry (give one entry all its events).")
            }
            endpoints.append(WebhookEndpoint(index: index, url: url, secret: secret, kinds: kinds))
        }
        return endpoints
    }

    /// The hooks of `GATEHOUSE_HOOKS` (JSON, or `@/path/file.json`), by point; none when unset.
    static func hooks(_ setting: String?) throws(Mistake) -> [AuthHooks.Point: HookEndpoint] {
        guard let json = try document(setting, hooksName) else { return [:] }
        guard case .object(let object) = json else {
            throw Mistake("\(hooksName) must be a JSON object with beforeSignUp and/or beforeLogIn.")
        }
        let points: [(String, AuthHooks.Point)] = [("beforeSignUp", .beforeSignUp), ("beforeLogIn", .beforeLogIn)]
        try onlyKnownFields(object, points.map(\.0), hooksName)
        var hooks: [AuthHooks.Point: HookEndpoint] = [:]
        for (key, point) in points {
            guard let value = object[key] else { continue }
            let name = "\(hooksName) \(key)"
            guard case .object(let entry) = value else { throw Mistake("\(name) must be an object with url and secret.") }
            try onlyKnownFields(entry, ["url", "secret", "timeoutMs", "onError"], name)
            var timeout = 2000
            if let given = entry["timeoutMs"] {
                guard case .int(let milliseconds) = given, (100...10_000).contains(milliseconds) else {
                    throw Mistake("\(name), field \"timeoutMs\": a whole number of milliseconds from 100 to 10000.")
                }
                timeout = milliseconds
            }
            var rejects = true
            if let given = entry["onError"] {
                switch given {
                case .string("reject"): rejects = true
                case .string("allow"): rejects = false
                default: throw Mistake("\(name), field \"onError\": \"reject\" or \"allow\".")
                }
            }
            hooks[point] = HookEndpoint(
                url: try url(entry, name), secret: try secret(entry, name), timeoutMilliseconds: timeout, rejectsOnError: rejects)
        }
        return hooks
    }

    /// The JSON of a setting: inline, or `@/path/file.json`; nil when unset or empty.
    private static func document(_ setting: String?, _ name: String) throws(Mistake) -> JSON? {
        guard var text = setting?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let contents = FileManager.default.contents(atPath: path) else { throw Mistake("\(name): cannot read \(path).") }
            text = String(decoding: contents, as: UTF8.self)
        }
        do { return try JSON.parse(text) } catch { throw Mistake("\(name) is not valid JSON: \(error).") }
    }

    private static func onlyKnownFields(_ object: JSONObject, _ known: [String], _ name: String) throws(Mistake) {
        for key in object.keys where !known.contains(key) {
            throw Mistake("\(name): unknown field \"\(key.prefix(64))\" (known: \(known.joined(separator: ", "))).")
        }
    }

    private static func url(_ object: JSONObject, _ name: String) throws(Mistake) -> String {
        guard case .string(let url)? = object["url"] else { throw Mistake("\(name), field \"url\": a URL in quotes is required.") }
        do { try HTTPFetcher.validate(url) } catch { throw Mistake("\(name), field \"url\": \(error).") }
        return url
    }

    private static func secret(_ object: JSONObject, _ name: String) throws(Mistake) -> WebhookSecret {
        guard case .string(let text)? = object["secret"], let secret = WebhookSecret(text) else {
            throw Mistake(
                "\(name), field \"secret\": whsec_ followed by the base64 of 24 to 64 random bytes is required (gatehouse webhooks secret prints one).")
        }
        return secret
    }
}
