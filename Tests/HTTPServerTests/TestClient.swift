import Glibc

/// A parsed HTTP/1.1 response as read off the socket by `TestConnection`.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

enum ClientError: Error, Equatable {
    case connectFailed(Int32)
    case sendFailed(Int32)
    case receiveFailed(Int32)
    case closedByPeer
    case malformed(String)
}

/// A tiny blocking TCP client speaking just enough HTTP/1.1 for the tests. Every
/// receive times out after 20 s so that a broken server fails a test instead of
/// hanging it.
final class TestConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(host: String = "127.0.0.1", port: Int) throws(ClientError) {
        let isIPv6 = host.contains(":")
        fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(errno) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw .connectFailed(code)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws(ClientError) { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .sendFailed(errno)
            }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws(ClientError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw .receiveFailed(errno)
        }
    }

    /// Reads one response (Content-Length framed, or to end of stream).
    func readResponse() throws(ClientError) -> RawResponse {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while true {
            if buffer.count >= 4 {
                headerEnd = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(terminator) }
            }
            if headerEnd != nil { break }
            guard try fill() else { throw .closedByPeer }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw .malformed(head)
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(line) }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters()))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length {
                guard try fill() else { throw .closedByPeer }
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

    /// Whether the peer closed the connection (end of stream or reset) with no more bytes.
    func isClosedByPeer() -> Bool {
        do {
            return try !fill() && buffer.isEmpty
        } catch .receiveFailed(let code) {
            return code == ECONNRESET && buffer.isEmpty
        } catch {
            return false
        }
    }

    /// One request on a fresh connection.
    static func get(_ target: String, port: Int, headers: [String] = []) throws(ClientError) -> RawResponse {
        let connection = try TestConnection(port: port)
        try connection.send(request("GET", target, headers: headers))
        return try connection.readResponse()
    }

    static func request(_ method: String, _ target: String, headers: [String] = [], body: [UInt8]? = nil) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        return text + "\r\n"
    }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
