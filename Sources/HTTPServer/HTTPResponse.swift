/// An HTTP response: status code, ordered headers and body bytes.
///
/// `Content-Length` is computed by the server; a `Content-Length` or
/// `Transfer-Encoding` header set here is ignored. Fields whose name or value
/// contain CR, LF or NUL are dropped rather than sent.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code (100...999; anything else is sent as 500).
    public var status: Int
    /// The header fields in order.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response from a numeric status code.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response from an ``HTTPStatus``.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.init(status: status.code, headers: headers, body: body)
    }

    /// A response whose body is `json` (already serialized UTF-8 JSON text),
    /// with `Content-Type: application/json`.
    public static func json(_ json: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The default response to a body over ``HTTPServer/Configuration/maxBodySize``
    /// (see ``HTTPHandler/bodyTooLarge(_:limit:)``): 413 with `{"error":"request body too large"}`.
    public static let bodyTooLarge = HTTPResponse.json(#"{"error":"request body too large"}"#, status: .contentTooLarge)
}
