internal import CCurl

/// curl_global_init, once per process (thread-safe: Swift initialises a global once; libcurl
/// 7.84 and later also make the call itself thread-safe).
private let curlInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

/// One libcurl easy handle with its error buffer, for one transfer on one thread.
/// Owns the `CURL *` and the buffer; `deinit` cleans up the handle and frees the buffer.
final class EasyHandle {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init() throws(SMTPError) {
        guard curlInitialized, let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw SMTPError("libcurl could not be initialised")
        }
        self.handle = handle
        errorBuffer[0] = 0
        // No signals: libcurl runs on the server's worker threads (a DNS timeout would use SIGALRM).
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) throws(SMTPError) {
        try check(gatehouse_curl_setopt_long(handle, option, value), setting: option)
    }

    func set(_ option: CURLoption, _ value: String) throws(SMTPError) {
        // libcurl copies strings it is given (CURLOPT_* string options, since 7.17).
        try check(value.withCString { gatehouse_curl_setopt_string(handle, option, $0) }, setting: option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(SMTPError) {
        try check(gatehouse_curl_setopt_pointer(handle, option, pointer), setting: option)
    }

    func setReadFunction(_ callback: curl_read_callback) throws(SMTPError) {
        try check(gatehouse_curl_setopt_read_function(handle, callback), setting: CURLOPT_READFUNCTION)
    }

    /// CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION (both take a write callback).
    func setWriteFunction(_ option: CURLoption, _ callback: curl_write_callback) throws(SMTPError) {
        try check(gatehouse_curl_setopt_write_function(handle, option, callback), setting: option)
    }

    /// CURLINFO_RESPONSE_CODE of the finished transfer (0 when there was none).
    var responseCode: Int {
        var code = 0
        _ = gatehouse_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Runs the transfer. On failure: curl's error text (or its generic text for the code) and
    /// the server's last reply code; `permanent` decides, from those, whether to retry.
    func perform(permanent: (CURLcode, Int?) -> Bool) -> SMTPError? {
        let code = curl_easy_perform(handle)
        guard code != CURLE_OK else { return nil }
        let reply = self.responseCode
        let responseCode = reply > 0 ? reply : nil
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let replyText = responseCode.map { ", server reply \($0)" } ?? ""
        return SMTPError(
            "\(detail) (curl error \(code.rawValue)\(replyText))", responseCode: responseCode,
            isPermanent: permanent(code, responseCode))
    }

    /// The one error funnel for options: a refused option is a libcurl built without a feature.
    private func check(_ code: CURLcode, setting option: CURLoption) throws(SMTPError) {
        guard code != CURLE_OK else { return }
        throw SMTPError("libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
    }
}
