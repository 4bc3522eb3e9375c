/// An HTTP request as received: method, target, headers, body and peer.
///
/// Built by ``HTTPServer`` after the whole body has arrived; never larger than
/// ``HTTPServer/Configuration/maxBodySize``.
public struct HTTPRequest: Sendable, Hashable {
    /// The request method exactly as sent, e.g. `GET` or `POST`.
    public var method: String
    /// The path, percent-decoded (`+` is left as is), without the query string.
    public var path: String
    /// The query string as sent, without the leading `?`; empty if there is none.
    public var rawQuery: String
    /// The query parameters in order, names and values percent-decoded with `+` as space.
    public var queryItems: [QueryItem]
    /// The request header fields in order; lookup is case-insensitive.
    public var headers: HTTPHeaders
    /// The body bytes (empty when there is no body).
    public var body: [UInt8]
    /// The client's IP address, e.g. `127.0.0.1` or `::1`; IPv4-mapped IPv6
    /// addresses are shown as IPv4. Empty if libmicrohttpd did not report one.
    public var clientAddress: String
    /// When the whole request had arrived (so a request's duration includes any wait for a
    /// thread or a lookup).
    public var receivedAt: ContinuousClock.Instant

    /// One decoded query parameter.
    public struct QueryItem: Sendable, Hashable {
        /// The decoded name.
        public var name: String
        /// The decoded value; empty for `?flag` (no `=`).
        public var value: String

        /// Creates a query item.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a request; `queryItems` are decoded from `rawQuery`.
    public init(
        method: String, path: String, rawQuery: String = "",
        headers: HTTPHeaders = [:], body: [UInt8] = [], clientAddress: String = "",
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.queryItems = URLDecoding.queryItems(rawQuery)
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
        self.receivedAt = receivedAt
    }

    /// The first value of query parameter `name`, or `nil`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The fields of an HTML form's body (`application/x-www-form-urlencoded`), decoded as query
    /// parameters are; empty for any other body.
    public var formItems: [QueryItem] {
        guard let type = headers["Content-Type"], Self.mediaType(of: type, is: "application/x-www-form-urlencoded") else { return [] }
        return URLDecoding.queryItems(String(decoding: body, as: UTF8.self))
    }

    /// Whether the media type of the Content-Type `value` (before any `;`, without the spaces and
    /// tabs around it) is `expected` (lower case), compared ASCII case-insensitively in place: a
    /// form post asks this once per request.
    static func mediaType(of value: String, is expected: String) -> Bool {
        var type = value.utf8[...]
        if let semicolon = type.firstIndex(of: UInt8(ascii: ";")) { type = type[..<semicolon] }
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = type.first, blank(first) { type = type.dropFirst() }
        while let last = type.last, blank(last) { type = type.dropLast() }
        guard type.count == expected.utf8.count else { return false }
        return zip(type, expected.utf8).allSatisfy { byte, wanted in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 == wanted : byte == wanted
        }
    }
}
