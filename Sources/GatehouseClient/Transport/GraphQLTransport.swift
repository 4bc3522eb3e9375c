import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GraphQL over HTTP with URLSession: one `POST` per operation, with the contract's headers,
/// and the response's first error turned into a ``GatehouseError``.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
struct GraphQLTransport: Sendable {
    let configuration: GatehouseConfiguration
    let installationId: String
    let session: URLSession

    /// Runs `query` and returns its `data` object; any GraphQL error is thrown.
    func execute(_ query: String, variables: [String: JSONValue] = [:], sessionToken: String? = nil)
        async throws(GatehouseError) -> JSONValue
    {
        var request = URLRequest(url: configuration.serverURL)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/graphql-response+json, application/json", forHTTPHeaderField: "Accept")
        if let appId = configuration.applicationId { request.setValue(appId, forHTTPHeaderField: "X-Parse-Application-Id") }
        request.setValue(installationId, forHTTPHeaderField: "X-Parse-Installation-Id")
        if let sessionToken { request.setValue(sessionToken, forHTTPHeaderField: "X-Parse-Session-Token") }
        let body: JSONValue = ["query": .string(query), "variables": .object(variables)]
        do { request.httpBody = try JSONEncoder().encode(body) } catch {
            throw .server(code: nil, message: "The request could not be encoded.")
        }

        let (data, response) = try await send(request)
        let retryAfter = (response.value(forHTTPHeaderField: "Retry-After")).flatMap { Int($0) }
        let json = try? JSONDecoder().decode(JSONValue.self, from: data)
        if response.statusCode == 403, json?["error"]?.string == "unauthorized" { throw .unauthorized }
        guard let json, case .object = json else {
            throw .server(code: nil, message: "HTTP \(response.statusCode) without a GraphQL response.")
        }
        if let first = json["errors"]?.array?.first {
            throw GatehouseError(
                code: first["extensions"]?["code"]?.int, message: first["message"]?.string ?? "Unknown error",
                retryAfter: retryAfter)
        }
        guard let result = json["data"], case .object = result else {
            throw .server(code: nil, message: "HTTP \(response.statusCode) without data.")
        }
        return result
    }

    /// The completion-handler API, which every URLSession (Apple and FoundationNetworking) has.
    private func send(_ request: URLRequest) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        let box = TaskBox()
        let outcome: Result<(Data, HTTPURLResponse), GatehouseError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(returning: .failure(.network(Self.describe(error))))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: .success((data ?? Data(), response)))
                    } else {
                        continuation.resume(returning: .failure(.network("not an HTTP response")))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
        return try outcome.get()
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .cannotFindHost: return "unknown host"
            case .notConnectedToInternet: return "not connected to the internet"
            case .cancelled: return "cancelled"
            default: return "URL error \(error.code.rawValue)"
            }
        }
        return String(describing: error)
    }
}

/// The data task of a request, so that cancelling the Swift task cancels it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
