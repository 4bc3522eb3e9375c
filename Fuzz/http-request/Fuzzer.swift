import GraphQL
import GraphQLHTTP
import HTTPServer
import JSON

/// http-request: the GraphQL-over-HTTP request handling of GraphQLHTTPResponder on
/// the stub schema. Framing of the fuzz input (an HTTP/1.1 request head, loosely):
///
///     METHOD SP TARGET LF          target = path [ "?" query ]
///     Name: value LF               zero or more header lines (CR before LF dropped;
///     LF                           lines without ":" are skipped)
///     body                         everything after the first empty line
///
/// Each request goes to two responders: the defaults, and one with an app id, a
/// small document limit and a shallow JSON limit. Every response must have a status
/// the responder documents and either the 403 body or a JSON object body with
/// `data` or `errors`, under a GraphQL response Content-Type.
///
/// The document cache is off (capacity 0): cached ASTs outlive the input, and
/// LeakSanitizer cannot see pointers held in multi-payload enums (the case tag is in
/// the pointer's spare bits), so every cached document would be reported as a leak.
let service = GraphQLService(executable: StubSchema.make(String.self), cacheCapacity: 0)
let plain = GraphQLHTTPResponder(service: service, context: { request, _, _ in .now(request.clientAddress) })
// Mutations as the server answers them: executed by blocking work.
let strict = GraphQLHTTPResponder(
    service: service, configuration: .init(appId: "fuzz-app", maxDocumentSize: 256, maxJSONDepth: 8),
    context: { request, _, operation in
        operation?.operation == .query ? .now(request.clientAddress) : .blocking(request.clientAddress)
    })
let statuses: Set<Int> = [200, 400, 403, 405, 406, 413, 415]
let unauthorized = GraphQLHTTPResponder<String>.unauthorized

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let request = frame(UnsafeBufferPointer(start: data, count: size))
    check(plain.answer(request).answer, request)
    check(strict.answer(request).answer, request)
    return 0
}

func frame(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPRequest {
    var lines: [String] = []
    var index = 0
    var bodyStart = bytes.count
    while index < bytes.count {
        let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
        var line = bytes[index..<end]
        if line.last == 0x0D { line = line.dropLast() }
        index = end + 1
        if line.isEmpty && !lines.isEmpty {
            bodyStart = min(index, bytes.count)
            break
        }
        lines.append(String(decoding: line, as: UTF8.self))
    }
    let requestLine = lines.first ?? ""
    let parts = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = String(parts[0])
    let target = parts.count > 1 ? parts[1] : "/graphql"
    let path: Substring, query: Substring
    if let mark = target.firstIndex(of: "?") {
        path = target[..<mark]
        query = target[target.index(after: mark)...]
    } else {
        path = target
        query = ""
    }
    var headers: HTTPHeaders = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        headers.add(name: String(line[..<colon]), value: String(value))
    }
    return HTTPRequest(
        method: method, path: String(path), rawQuery: String(query), headers: headers,
        body: Array(bytes[bodyStart...]), clientAddress: "203.0.113.7")
}

/// Checks the response an answer makes: `.now`, or the blocking work run here (the stub
/// resolvers never block, and neither responder answers `.later`).
func check(_ answer: HTTPAnswer, _ request: HTTPRequest) {
    switch answer {
    case .now(let response): check(answer: response, request)
    case .blocking(let work): check(answer: work(), request)
    case .later: fatalError("no context here is ready later\nrequest: \(request)")
    }
}

func check(answer response: HTTPResponse, _ request: HTTPRequest) {
    func fail(_ why: String) -> Never {
        fatalError("\(why)\nrequest: \(request)\nstatus: \(response.status)\nheaders: \(response.headers.fields)\nbody: \(String(decoding: response.body, as: UTF8.self))")
    }
    guard statuses.contains(response.status) else { fail("unexpected status") }
    if response.status == 403 {
        guard response == unauthorized else { fail("403 without the unauthorized body") }
        return
    }
    guard let contentType = response.headers["Content-Type"],
        contentType.hasPrefix("application/graphql-response+json") || contentType.hasPrefix("application/json")
    else { fail("no GraphQL response Content-Type") }
    if response.status == 405 && response.headers["Allow"] == nil { fail("405 without Allow") }
    guard case .object(let object)? = try? JSONParser(maxDepth: 100_000).parse(response.body) else {
        fail("the body is not a JSON object")
    }
    guard object["data"] != nil || object["errors"] != nil else { fail("the body has neither data nor errors") }
    if response.status != 200, object["data"] != nil, response.status != 400 { fail("data with an error status") }
}
