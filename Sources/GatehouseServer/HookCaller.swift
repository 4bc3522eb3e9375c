import Auth
import Curl
import Foundation
import JSON
import Sodium

/// Calls the hooks of `GATEHOUSE_HOOKS` for the domain (``AuthHooks``): a POST signed as a
/// webhook (``WebhookSignature``), body `{"type": "before.sign_up" | "before.log_in",
/// "timestamp", "data"}`, waiting at most the hook's `timeoutMs`. A 200 answer of
/// `{"allow": true}` lets the operation go on; `{"allow": false, "message": "…"}` refuses it with
/// that message (control characters removed, at most ``messageLimit`` characters). Any other
/// answer, or none in time, is the hook's `onError`: `reject` refuses with the operation's
/// "unavailable" message, `allow` goes on.
struct HookCaller: Sendable {
    let hooks: [AuthHooks.Point: HookEndpoint]
    let logger: Logger
    private let fetcher = HTTPFetcher()

    /// Most characters of a hook's message shown to the client.
    static let messageLimit = 200

    init(hooks: [AuthHooks.Point: HookEndpoint], logger: Logger) {
        self.hooks = hooks
        self.logger = logger
    }

    /// The domain's view of these hooks.
    var authHooks: AuthHooks {
        AuthHooks(points: Set(hooks.keys)) { point, data in call(point, data) }
    }

    /// What a failed hook answers with `onError` `reject`.
    static func unavailable(_ point: AuthHooks.Point) -> String {
        switch point {
        case .beforeSignUp: "Sign-up is unavailable, try again later."
        case .beforeLogIn: "Log-in is unavailable, try again later."
        }
    }

    func call(_ point: AuthHooks.Point, _ data: JSONObject) -> AuthHooks.Verdict? {
        guard let hook = hooks[point] else { return nil }
        let id = "msg_" + SecureRandom.hex(count: 16)
        let now = Date()
        var timestamp: [UInt8] = []
        ISO8601.write(milliseconds: Int64((now.timeIntervalSince1970 * 1000).rounded()), to: &timestamp)
        let body = JSON.object([
            "type": .string(point.rawValue), "timestamp": .string(String(decoding: timestamp, as: UTF8.self)), "data": .object(data),
        ]).serialized()
        let headers = WebhookSignature.headers(id: id, timestamp: Int(now.timeIntervalSince1970), body: body, secret: hook.secret)
        let problem: String
        do {
            let answer = try fetcher.post(hook.url, headers: headers, body: body, timeoutMilliseconds: hook.timeoutMilliseconds)
            if answer.status == 200, let verdict = Self.verdict(answer.body, point) { return verdict }
            problem = answer.status == 200 ? "the answer is not {\"allow\": true|false, \"message\": …}" : "HTTP \(answer.status)"
        } catch {
            problem = error.description
        }
        logger.warn("hook failed", [
            "hook": .string(point.rawValue), "onError": .string(hook.rejectsOnError ? "reject" : "allow"), "error": .string(problem),
        ])
        return hook.rejectsOnError ? .refuse(Self.unavailable(point)) : .allow
    }

    /// The verdict of a 200 answer's body; nil when it is not one.
    static func verdict(_ body: [UInt8], _ point: AuthHooks.Point) -> AuthHooks.Verdict? {
        guard case .object(let object)? = try? JSON.parse(bytes: body), case .bool(let allow)? = object["allow"] else { return nil }
        if allow { return .allow }
        let message = cleaned(object["message"]?.stringValue ?? "")
        return .refuse(message.isEmpty ? unavailable(point) : message)
    }

    /// `message` without control characters, cut to ``messageLimit`` characters.
    static func cleaned(_ message: String) -> String {
        let kept = message.unicodeScalars.filter { $0.properties.generalCategory != .control }
        return String(String(String.UnicodeScalarView(kept)).prefix(messageLimit)).trimmingCharacters(in: .whitespaces)
    }
}
