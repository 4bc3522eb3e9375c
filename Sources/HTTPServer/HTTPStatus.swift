/// An HTTP status code with its standard reason phrase (RFC 9110 §15).
public struct HTTPStatus: Sendable, Hashable {
    /// The three-digit code.
    public var code: Int
    /// The reason phrase, e.g. `Not Found`.
    public var reasonPhrase: String

    /// Creates a status; `reasonPhrase` defaults to the standard phrase for `code`.
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? Self.standardPhrases[code] ?? ""
    }

    /// 200 OK
    public static let ok = HTTPStatus(code: 200)
    /// 201 Created
    public static let created = HTTPStatus(code: 201)
    /// 204 No Content
    public static let noContent = HTTPStatus(code: 204)
    /// 301 Moved Permanently
    public static let movedPermanently = HTTPStatus(code: 301)
    /// 304 Not Modified
    public static let notModified = HTTPStatus(code: 304)
    /// 400 Bad Request
    public static let badRequest = HTTPStatus(code: 400)
    /// 401 Unauthorized
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403 Forbidden
    public static let forbidden = HTTPStatus(code: 403)
    /// 404 Not Found
    public static let notFound = HTTPStatus(code: 404)
    /// 405 Method Not Allowed
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 406 Not Acceptable
    public static let notAcceptable = HTTPStatus(code: 406)
    /// 408 Request Timeout
    public static let requestTimeout = HTTPStatus(code: 408)
    /// 409 Conflict
    public static let conflict = HTTPStatus(code: 409)
    /// 413 Content Too Large
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 415 Unsupported Media Type
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    /// 422 Unprocessable Content
    public static let unprocessableContent = HTTPStatus(code: 422)
    /// 429 Too Many Requests
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 431 Request Header Fields Too Large
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    /// 500 Internal Server Error
    public static let internalServerError = HTTPStatus(code: 500)
    /// 501 Not Implemented
    public static let notImplemented = HTTPStatus(code: 501)
    /// 503 Service Unavailable
    public static let serviceUnavailable = HTTPStatus(code: 503)

    private static let standardPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
        301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 411: "Length Required", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}
