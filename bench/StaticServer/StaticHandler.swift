import HTTPServer

/// Serves one fixed small JSON document for every request.
struct StaticHandler: HTTPHandler {
    /// What `{ health }` answers, so make bench can send both servers the same request and check.
    let response = HTTPResponse.json(#"{"data":{"health":true}}"#)

    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        .now(response)
    }
}
