import Foundation
import JSON

/// A response as read off the socket.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON (our own parser keeps key order).
    public func json() throws -> JSON { try JSONParser().parse(body) }
}

public struct HTTPClientError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A tiny blocking HTTP/1.1 client over one TCP connection to 127.0.0.1. Every
/// receive times out after 30 s so that a broken server fails a test instead of
/// hanging it. Keeps the connection open between requests (keep-alive).
public final class HTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw HTTPClientError(description: "connect to port \(port): errno \(code)")
        }
    }

    deinit { close(fd) }

    /// Sends one request and reads its response. A send that fails because the server
    /// answered early (413) and closed still reads that answer.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> RawResponse {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        var bytes = Array((text + "\r\n").utf8)
        if let body { bytes += body }
        do { try send(bytes) } catch {}
        return try readResponse()
    }

    /// POSTs a GraphQL request to /graphql.
    public func graphQL(
        _ query: String, variables: JSONObject = [:], operationName: String? = nil, headers: [(String, String)] = []
    ) throws -> RawResponse {
        var object: JSONObject = ["query": .string(query)]
        if !variables.isEmpty { object["variables"] = .object(variables) }
        if let operationName { object["operationName"] = .string(operationName) }
        return try request(
            "POST", "/graphql", headers: [("Content-Type", "application/json")] + headers, body: JSON.object(object).serialized())
    }

    /// Sends raw bytes (for partial or malformed requests).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw HTTPClientError(description: "send: errno \(errno)")
            }
            offset += sent
        }
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw HTTPClientError(description: "recv: errno \(errno)")
        }
    }

    /// Reads one response.
    public func readResponse() throws -> RawResponse {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while true {
            if buffer.count >= 4 {
                headerEnd = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(terminator) }
            }
            if headerEnd != nil { break }
            guard try fill() else { throw HTTPClientError(description: "connection closed before a response") }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw HTTPClientError(description: "malformed status line in \(head)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPClientError(description: "malformed header \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if status == 204 || status == 304 || (100..<200).contains(status) {
            // No body by definition (RFC 9110 §6.4.1), and no Content-Length needed.
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length {
                guard try fill() else { throw HTTPClientError(description: "connection closed in the body") }
            }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }
}

extension JSON {
    /// Follows a path of object keys.
    public func at(_ keys: String...) -> JSON? {
        var value: JSON? = self
        for key in keys { value = value?[key] }
        return value
    }
}
