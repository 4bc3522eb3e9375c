internal import CCurl

/// Why a GET was refused or failed. Safe to log: the URL's host and curl's error text, never a body.
public struct FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// HTTP GETs with libcurl, for small documents such as JSON Web Key Sets: a new connection per
/// request, safe to use from any thread.
///
/// Only `https://` URLs, and `http://` to loopback addresses (127.0.0.0/8, ::1, localhost) for
/// local development and tests. Certificates are always verified (the system's CAs, or `caFile`).
/// Redirects are not followed; a body over ``maxBodySize`` fails the request.
public struct HTTPFetcher: Sendable {
    /// The largest body accepted: key sets are a few kilobytes.
    public static let maxBodySize = 1 << 20
    private let timeout: Int
    private let caFile: String?

    /// `timeout`: seconds for the whole request (and for connecting). `caFile`: a PEM bundle of
    /// the CAs to trust instead of the system's.
    public init(timeout: Int = 10, caFile: String? = nil) {
        self.timeout = max(1, timeout)
        self.caFile = caFile
    }

    /// GET; https only, http only to loopback addresses (127.0.0.0/8, ::1, localhost).
    /// Response header names are lower-cased; a repeated header keeps its last value.
    public func get(_ url: String) throws(FetchError) -> (status: Int, headers: [String: String], body: [UInt8]) {
        try Self.validate(url)
        let response = Response()
        do {
            let easy = try EasyHandle()
            try easy.set(CURLOPT_URL, url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "https,http")
            try easy.set(CURLOPT_TIMEOUT, timeout)
            try easy.set(CURLOPT_CONNECTTIMEOUT, timeout)
            if let caFile { try easy.set(CURLOPT_CAINFO, caFile) }
            let context = Unmanaged.passUnretained(response).toOpaque()
            try easy.set(CURLOPT_WRITEDATA, pointer: context)
            try easy.setWriteFunction(CURLOPT_WRITEFUNCTION, appendBody)
            try easy.set(CURLOPT_HEADERDATA, pointer: context)
            try easy.setWriteFunction(CURLOPT_HEADERFUNCTION, appendHeader)
            let failure = withExtendedLifetime(response) { easy.perform { _, _ in false } }
            if response.tooLarge { throw FetchError("\(Self.origin(url)): the response is larger than \(Self.maxBodySize) bytes") }
            if let failure { throw FetchError("\(Self.origin(url)): \(failure.description)") }
            return (easy.responseCode, response.headers, response.body)
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError("\(Self.origin(url)): \(error)")
        }
    }

    /// POSTs `body` with `headers` (each `Name: value`), allowing `timeoutMilliseconds` for the
    /// whole exchange; the same URLs as ``get(_:)``. The status of the answer (its body is read
    /// up to ``maxBodySize``); a failure to get one (refused, timed out) throws.
    public func post(
        _ url: String, headers: [String], body: [UInt8], timeoutMilliseconds: Int
    ) throws(FetchError) -> (status: Int, body: [UInt8]) {
        try Self.validate(url)
        let easy: EasyHandle
        do { easy = try EasyHandle() } catch { throw FetchError("\(Self.origin(url)): \(error)") }
        return try Self.post(url, headers: headers, body: body, timeoutMilliseconds: timeoutMilliseconds, caFile: caFile, on: easy)
    }

    /// ``post(_:headers:body:timeoutMilliseconds:)`` on `easy`, which keeps its connection for the
    /// next request on it when the server allows. The caller has checked `url` (``validate(_:)``).
    static func post(
        _ url: String, headers: [String], body: [UInt8], timeoutMilliseconds: Int, caFile: String?, on easy: EasyHandle
    ) throws(FetchError) -> (status: Int, body: [UInt8]) {
        let response = Response()
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        do {
            for header in headers {
                guard let appended = header.withCString({ curl_slist_append(list, $0) }) else {
                    throw FetchError("out of memory for the headers")
                }
                list = appended
            }
            try easy.set(CURLOPT_URL, url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "https,http")
            try easy.set(CURLOPT_TIMEOUT_MS, max(1, timeoutMilliseconds))
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, timeoutMilliseconds))
            if let caFile { try easy.set(CURLOPT_CAINFO, caFile) }
            try easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list))
            try easy.set(CURLOPT_POSTFIELDSIZE, body.count)
            // COPYPOSTFIELDS copies POSTFIELDSIZE bytes at once (a body of text: no NUL inside).
            try easy.set(CURLOPT_COPYPOSTFIELDS, String(decoding: body, as: UTF8.self))
            let context = Unmanaged.passUnretained(response).toOpaque()
            try easy.set(CURLOPT_WRITEDATA, pointer: context)
            try easy.setWriteFunction(CURLOPT_WRITEFUNCTION, appendBody)
            // The list and the context live only through this transfer: the handle forgets them.
            defer {
                _ = try? easy.set(CURLOPT_HTTPHEADER, pointer: nil)
                _ = try? easy.set(CURLOPT_WRITEDATA, pointer: nil)
            }
            let failure = withExtendedLifetime(response) { easy.perform { _, _ in false } }
            if response.tooLarge { throw FetchError("\(origin(url)): the response is larger than \(maxBodySize) bytes") }
            if let failure { throw FetchError("\(origin(url)): \(failure.description)") }
            return (easy.responseCode, response.body)
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError("\(origin(url)): \(error)")
        }
    }

    /// Throws unless `url` is one ``get(_:)`` would fetch: an `https://` URL, or `http://` to a
    /// loopback address. For checking configured URLs at start-up.
    public static func validate(_ url: String) throws(FetchError) {
        guard let handle = curl_url() else { throw FetchError("out of memory for the URL") }
        defer { curl_url_cleanup(handle) }
        let set = curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard set == CURLUE_OK else { throw FetchError("\"\(url)\" is not a URL (\(String(cString: curl_url_strerror(set))))") }
        func part(_ which: CURLUPart) -> String {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return "" }
            defer { curl_free(value) }
            return String(cString: value)
        }
        let scheme = part(CURLUPART_SCHEME).lowercased()
        let host = part(CURLUPART_HOST).lowercased()
        guard !host.isEmpty else { throw FetchError("\"\(url)\" has no host") }
        switch scheme {
        case "https": return
        case "http" where isLoopbackHost(host): return
        case "http": throw FetchError("\"\(url)\" must use https (plain http only to a loopback address)")
        default: throw FetchError("\"\(url)\" must use https, not \(scheme)")
        }
    }

    /// `scheme://host[:port]` of a URL, for error texts (a path or query could hold a secret).
    static func origin(_ url: String) -> String {
        guard let start = url.firstRange(of: "://") else { return "the URL" }
        let authority = url[start.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(url[..<start.upperBound]) + (authority.split(separator: "@").last.map(String.init) ?? "")
    }
}

/// The response as libcurl hands it over.
private final class Response {
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    var tooLarge = false
}

/// CURLOPT_WRITEFUNCTION: appends to the `Response`'s body, failing the transfer past the limit.
private let appendBody: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let response = Unmanaged<Response>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard response.body.count + length <= HTTPFetcher.maxBodySize else {
        response.tooLarge = true
        return 0
    }
    if let data, length > 0 {
        response.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// CURLOPT_HEADERFUNCTION: one header line at a time; a status line starts a new header block
/// (an interim 100 response's headers are dropped).
private let appendHeader: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let response = Unmanaged<Response>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        response.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        response.headers[name] = String(value.reversed().drop { $0.isWhitespace }.reversed())
    }
    return length
}
