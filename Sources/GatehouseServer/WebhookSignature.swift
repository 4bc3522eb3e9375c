import Foundation
import Signatures

/// The Standard Webhooks headers of a request (standardwebhooks.com): `webhook-id`,
/// `webhook-timestamp` and `webhook-signature` `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
/// under the endpoint's secret, with the JSON content type. Webhooks and hooks are signed alike.
enum WebhookSignature {
    /// The `v1,…` signature of `body` sent as `id` at `timestamp` (Unix seconds).
    static func signature(id: String, timestamp: Int, body: [UInt8], secret: WebhookSecret) -> String {
        let mac = secret.signer.mac(Array("\(id).\(timestamp).".utf8) + body)
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The request's headers, as `Name: value` lines.
    static func headers(id: String, timestamp: Int, body: [UInt8], secret: WebhookSecret) -> [String] {
        [
            "Content-Type: application/json", "webhook-id: \(id)", "webhook-timestamp: \(timestamp)",
            "webhook-signature: \(signature(id: id, timestamp: timestamp, body: body, secret: secret))",
        ]
    }
}
