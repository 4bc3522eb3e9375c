import HTTPServer

/// Serves one fixed small JSON document for every request.
struct StaticHandler: HTTPHandler {
    let response = HTTPResponse.json(#"{"data":{"hello":"world"}}"#)

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        response
    }
}
