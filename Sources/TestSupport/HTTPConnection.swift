import Foundation

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
}

/// Why an ``HTTPConnection`` call failed: an errno, the server closing the connection before a
/// whole response arrived, or a response that is not HTTP/1.x.
public enum HTTPClientError: Error, Equatable {
    case connectFailed(Int32), sendFailed(Int32), receiveFailed(Int32), closedByPeer, malformed(String)
}

/// A tiny blocking HTTP/1.1 client over one TCP connection (IPv4 or IPv6 numeric host).
/// Every receive times out (30 s by default) so that a broken server fails a test instead
/// of hanging it. Keeps the connection open between requests (keep-alive); ``send(_:)-([UInt8])``
/// writes raw bytes for partial or malformed requests.
public final class HTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host`:`port`; with `sourceHost` (an IPv4 address, e.g. `127.0.0.2`: every
    /// 127/8 address is loopback on Linux), from that address, so that one machine can be
    /// several clients.
    public init(host: String = "127.0.0.1", port: Int, sourceHost: String? = nil, timeoutSeconds: Int = 30) throws(HTTPClientError) {
        let isIPv6 = host.contains(":")
        fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(errno) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let sourceHost {
            var source = sockaddr_in()
            source.sin_family = sa_family_t(AF_INET)
            let bound = inet_pton(AF_INET, sourceHost, &source.sin_addr) == 1 && withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            if !bound { throw .connectFailed(errno) }
        }
        func connect<Address>(_ address: inout Address) -> Int32 {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
            }
        }
        var result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = connect(&address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = connect(&address)
        }
        if result != 0 { throw .connectFailed(errno) }
    }

    /// Also runs when `init` throws once `fd` is set: the only place the socket is closed, as
    /// closing it twice could close a descriptor another thread has since been given (a server's
    /// listening socket, whose loss aborts libmicrohttpd).
    deinit { if fd >= 0 { close(fd) } }

    /// One request on a fresh connection.
    public static func get(_ target: String, port: Int, headers: [(String, String)] = []) throws(HTTPClientError) -> RawResponse {
        try HTTPConnection(port: port).request("GET", target, headers: headers)
    }

    /// Sends one request and reads its response. A send that fails because the server
    /// answered early (413) and closed still reads that answer.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil)
        throws(HTTPClientError) -> RawResponse
    {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        var bytes = Array((text + "\r\n").utf8)
        if let body { bytes += body }
        do { try send(bytes) } catch {}
        return try readResponse()
    }

    /// Sends raw text.
    public func send(_ text: String) throws(HTTPClientError) { try send(Array(text.utf8)) }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws(HTTPClientError) {
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
    private func fill() throws(HTTPClientError) -> Bool {
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

    /// Reads one response (no body, Content-Length framed, or to end of stream).
    public func readResponse() throws(HTTPClientError) -> RawResponse {
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
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw .malformed(head)
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(line) }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if status == 204 || status == 304 || (100..<200).contains(status) {
            // No body by definition (RFC 9110 §6.4.1), and no Content-Length needed.
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
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

    /// Waits (up to the receive timeout) for the peer to close the connection (end of stream
    /// or reset); false if bytes arrive or the wait times out instead.
    public func isClosedByPeer() -> Bool {
        do {
            return try !fill() && buffer.isEmpty
        } catch .receiveFailed(let code) {
            return code == ECONNRESET && buffer.isEmpty
        } catch {
            return false
        }
    }
}
