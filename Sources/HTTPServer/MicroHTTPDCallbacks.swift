internal import CMicroHTTPD
internal import Glibc
import Threading

// The C callbacks handed to libmicrohttpd. They are plain non-isolated functions
// (never closures from main.swift: see PLATFORM.md) and find their state through
// the `void *` context: `ServerCore` (unretained, owned by HTTPServer) and, per
// request, `RequestState` through `*con_cls` (retained once, released once).
// The core is borrowed (`_withUnsafeGuaranteedRef`), not retained: HTTPServer owns it while
// the daemon calls these, and a retain and release of the one shared object on every thread
// would move its cache line between the cores on every callback.

/// MHD_OPTION_URI_LOG_CALLBACK: called once per request with the raw target, before
/// libmicrohttpd unescapes it; the return value becomes the initial `*con_cls`.
func gatehouseURILog(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls else { return nil }
    let target: [UInt8] = uri.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
    return Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { core in
        var tracked: TrackedConnection? = nil
        if core.connectionGuard != nil, let connection {
            tracked = ConnectionGuard.tracked(connection)
            tracked?.requestLineArrived()
        }
        return Unmanaged.passRetained(RequestState(core: core, rawTarget: target, connection: tracked)).toOpaque()
    }
}

/// MHD_OPTION_NOTIFY_CONNECTION: a connection opened or is about to be closed (only set with a
/// ``ConnectionGuard``).
func gatehouseConnectionNotify(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { core in
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            core.connectionGuard?.opened(connection, socketContext)
        case .CONNECTION_NOTIFY_CLOSED:
            core.connectionGuard?.closed(socketContext)
            core.openConnections.subtract(1, ordering: .relaxed)
        }
    }
}

/// MHD_OPTION_NOTIFY_COMPLETED: the only place a RequestState is released.
func gatehouseRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let conCls, let raw = conCls.pointee else { return }
    conCls.pointee = nil
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
    if let tracked = state.connection, let connectionGuard = state.core.connectionGuard {
        tracked.requestCompleted(idleGrace: connectionGuard.idleGrace)
    }
}

/// MHD_OPTION_EXTERNAL_LOGGER: formats libmicrohttpd's message.
func gatehouseLog(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    var message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.last == "\n" { message.removeLast() }
    core.lastLogMessage.withLock { $0 = message }
    core.log?("libmicrohttpd: " + message)
}

/// Collects request headers in order (MHD_get_connection_values_n iterator).
private func gatehouseCollectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
    state.headers.append(.init(name: text(key, keySize), value: value.map { text($0, valueSize) } ?? ""))
    return .YES
}

/// Up to 15 bytes, a small (inline) string, which the standard library checks for ASCII with
/// one mask before it would run the UTF-8 validator (invalid bytes are repaired either way).
private func text(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
    let bytes = UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self)
    guard count <= 15 else { return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self) }
    return String(unsafeUninitializedCapacity: count) { out in
        out.baseAddress!.initialize(from: bytes, count: count)
        return count
    }
}

/// The access handler, in the two-phase pattern libmicrohttpd needs for keep-alive
/// (PLATFORM.md): the first call only looks at the headers and returns YES; later
/// calls consume upload data; the call with `*upload_data_size == 0` after that
/// runs the Swift handler and queues its response.
func gatehouseAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { core in
        // With a pool for blocking answers, libmicrohttpd's threads are the event loop: what
        // answers here must not block. (With one thread per connection, they may.)
        if core.blocking != nil { EventThread.markCurrent() }
        return access(core, connection, url, method, uploadData, uploadDataSize, conCls)
    }
}

/// The access handler's work, with the core borrowed for the call.
private func access(
    _ core: ServerCore, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>
) -> MHD_Result {
    let state: RequestState
    if let raw = conCls.pointee {
        state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
    } else {
        // Not expected (the URI-log callback always runs first); keep the same
        // ownership rule so the completed callback releases it.
        let target = url.map { Array(String(cString: $0).utf8) } ?? []
        state = RequestState(core: core, rawTarget: target, connection: nil)
        conCls.pointee = Unmanaged.passRetained(state).toOpaque()
    }

    if !state.headersProcessed {
        state.headersProcessed = true
        state.headers.reserveCapacity(8)
        _ = MHD_get_connection_values_n(
            connection, .HEADER_KIND, gatehouseCollectHeader,
            Unmanaged.passUnretained(state).toOpaque())
        // Refuse before reading a byte of the body when the declared length is too
        // large. libmicrohttpd then closes the connection after the 413, since the
        // unread body cannot be skipped.
        if let declared = HTTPHeaders(state.headers)["Content-Length"],
           let length = decimal(declared), length > UInt64(core.maxBodySize) {
            state.responded = true
            return queue(bodyTooLarge(core, state, connection, method), on: connection, core: core)
        }
        return .YES
    }

    let size = uploadDataSize.pointee
    if size > 0 {
        if state.responded { return .NO }  // not reached: an early 413 discards the body
        // Bodies without a declared length (chunked) are counted as they arrive.
        // libmicrohttpd 0.9.75 accepts a response only before the body is read or
        // after all of it (MHD_queue_response checks the state), so an overflowing
        // body is discarded up to `overflowDiscardLimit` more bytes and then
        // answered with 413; a body longer than that gets the connection closed
        // without a response.
        if state.overflowed || size > core.maxBodySize - state.body.count {
            if !state.overflowed {
                state.overflowed = true
                state.discarded = state.body.count
                state.body = []
            }
            state.discarded += size
            uploadDataSize.pointee = 0
            return state.discarded - core.maxBodySize > RequestState.overflowDiscardLimit ? .NO : .YES
        }
        if let uploadData {
            UnsafeRawPointer(uploadData).withMemoryRebound(to: UInt8.self, capacity: size) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    if state.responded {
        // Called again after a suspended request's connection was resumed with its reply.
        return core.takeReply(state).map { queue($0, on: connection, core: core) } ?? .YES
    }
    state.responded = true
    state.connection?.bodyReceived()
    if state.overflowed {
        return queue(bodyTooLarge(core, state, connection, method), on: connection, core: core)
    }

    let request = makeRequest(state, connection, method)
    state.body = []
    state.headers = []
    return core.answer(request, state: state, connection: connection)
}

/// The request of `state`, with the body received so far.
private func makeRequest(_ state: RequestState, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>?) -> HTTPRequest {
    let (rawPath, rawQuery) = URLDecoding.split(target: state.rawTarget)
    var clientAddress = ""
    if let info = gatehouse_mhd_connection_info(connection, .CONNECTION_INFO_CLIENT_ADDRESS),
       let address = info.pointee.client_addr {
        clientAddress = SocketAddress.text(of: address)
    }
    return HTTPRequest(
        method: method.map { String(cString: $0) } ?? "",
        path: URLDecoding.decode(rawPath, plusAsSpace: false),
        rawQuery: String(decoding: rawQuery, as: UTF8.self),
        headers: HTTPHeaders(state.headers),
        body: state.body,
        clientAddress: clientAddress)
}

/// The handler's 413 for the request of `state` (whose body was never kept).
private func bodyTooLarge(
    _ core: ServerCore, _ state: RequestState, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>?
) -> HTTPResponse {
    core.handler.bodyTooLarge(makeRequest(state, connection, method), limit: core.maxBodySize)
}

/// Copies `response` into a libmicrohttpd response (MUST_COPY: libmicrohttpd owns
/// its copy, Swift keeps its array) and queues it.
func queue(_ response: HTTPResponse, on connection: OpaquePointer, core: ServerCore) -> MHD_Result {
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let mhdResponse = created else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for field in response.headers where isSendable(field) {
        // Explicitly: passing the Strings as pointers copied each into a new C array.
        field.name.withCString { name in
            field.value.withCString { value in _ = MHD_add_response_header(mhdResponse, name, value) }
        }
    }
    if core.draining.load(ordering: .relaxed) {
        _ = MHD_add_response_header(mhdResponse, "Connection", "close")
    }
    let status = (100...999).contains(response.status) ? UInt32(response.status) : 500
    return MHD_queue_response(connection, status, mhdResponse)
}

/// libmicrohttpd computes framing itself; CR, LF and NUL would split or truncate a field.
private func isSendable(_ field: HTTPHeaders.Field) -> Bool {
    if field.name.isEmpty { return false }
    if HTTPHeaders.namesEqual(field.name, "Content-Length")
        || HTTPHeaders.namesEqual(field.name, "Transfer-Encoding") { return false }
    func forbidden(_ byte: UInt8) -> Bool { byte == 0 || byte == 10 || byte == 13 }
    return !field.name.utf8.contains(where: { forbidden($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: " ") })
        && !field.value.utf8.contains(where: forbidden)
}

/// A Content-Length value: decimal digits between optional spaces and tabs; nil for
/// anything else (or a value beyond UInt64).
func decimal(_ text: String) -> UInt64? {
    var value: UInt64? = nil
    var ended = false
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"):
            if value != nil { ended = true }
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard !ended else { return nil }
            let (times10, overflow1) = (value ?? 0).multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        default:
            return nil
        }
    }
    return value
}
