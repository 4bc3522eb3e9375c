/// POSTs over one reused libcurl easy handle: the handle keeps its connections open between
/// requests (HTTP keep-alive, TLS sessions), so a sender posting many small requests to the same
/// endpoints pays for one connection, not one per request. The same URLs and checks as
/// ``HTTPFetcher``.
///
/// Owns its `EasyHandle` (and through it the connections), freed in `deinit`. One thread at a
/// time uses a connection; it may move between threads (a pool of idle connections), hence
/// `@unchecked Sendable`.
public final class HTTPConnection: @unchecked Sendable {
    private let easy: EasyHandle
    private let caFile: String?
    /// The URL last checked (``HTTPFetcher/validate(_:)``): a connection mostly posts to one
    /// URL, which need not be parsed again for each request.
    private var checkedURL: String?

    /// `caFile`: a PEM bundle of the CAs to trust instead of the system's.
    public init(caFile: String? = nil) throws(FetchError) {
        do { easy = try EasyHandle() } catch { throw FetchError("\(error)") }
        self.caFile = caFile
    }

    /// ``HTTPFetcher/post(_:headers:body:timeoutMilliseconds:)`` on this connection's handle.
    public func post(
        _ url: String, headers: [String], body: [UInt8], timeoutMilliseconds: Int
    ) throws(FetchError) -> (status: Int, body: [UInt8]) {
        if url != checkedURL {
            try HTTPFetcher.validate(url)
            checkedURL = url
        }
        return try HTTPFetcher.post(url, headers: headers, body: body, timeoutMilliseconds: timeoutMilliseconds, caFile: caFile, on: easy)
    }
}
