import Foundation

/// A tiny blocking HTTP/1.1 client over a TCP socket to 127.0.0.1, for tests that need
/// full control: arbitrary bytes, keep-alive, slow or partial requests.
public final class RawHTTPClient {
    public struct Response: Sendable {
        public var status: Int
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct ClientError: Error, CustomStringConvertible {
        public let description: String
    }

    private let socket: Int32

    /// Connects to 127.0.0.1:`port` with a receive timeout.
    public init(port: Int, timeoutSeconds: Int = 20) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ClientError(description: "socket() failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw ClientError(description: "connect to 127.0.0.1:\(port) failed")
        }
    }

    deinit { close(socket) }

    /// Sends raw bytes (all of them, or throws).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBufferPointer { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send failed") }
            offset += sent
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// A request with `Content-Length` (and `Host`); `headers` in order.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        do {
            try send(Array(head.utf8) + body)
        } catch {
            // The server may answer (413) and close before the whole body is sent.
        }
        return try readResponse()
    }

    /// A JSON POST to `/graphql`.
    public func graphql(_ body: String, headers: [(String, String)] = []) throws -> Response {
        try request("POST", "/graphql", headers: [("Content-Type", "application/json")] + headers, body: Array(body.utf8))
    }

    private var buffer: [UInt8] = []

    /// Reads one response (Content-Length or chunked bodies).
    public func readResponse() throws -> Response {
        func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { throw ClientError(description: count == 0 ? "connection closed" : "receive timed out") }
            buffer += chunk[0..<count]
        }
        func headerEnd() -> Int? {
            guard buffer.count >= 4 else { return nil }
            for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                return i
            }
            return nil
        }
        var end = headerEnd()
        while end == nil { try fill(); end = headerEnd() }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError(description: "bad status line") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length { try fill() }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                var lineEnd: Int? = nil
                while lineEnd == nil {
                    if let i = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) { lineEnd = i } else { try fill() }
                }
                let size = Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self), radix: 16) ?? 0
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try fill() }
                body += buffer[0..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        }
        return Response(status: status, headers: headers, body: body)
    }
}
