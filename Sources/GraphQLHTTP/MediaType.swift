import HTTPServer

/// A media type with parameters, as in `Content-Type` and `Accept` (RFC 9110 §8.3.1).
struct MediaType: Equatable {
    var type: String
    var subtype: String
    var parameters: [String: String]

    /// Parses `type/subtype; name=value; ...` (names and types lowercased, quotes removed).
    init?(_ text: Substring) {
        // What nearly every client sends: skip the general parse (splits and lowercased copies
        // were a twentieth of the server's CPU for `{ health }`).
        if text == "application/json" || text == "application/json; charset=utf-8" {
            type = "application"
            subtype = "json"
            parameters = text.utf8.count == 16 ? [:] : ["charset": "utf-8"]
            return
        }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        let essence = parts[0].trimmingWhitespace().lowercased()
        let slash = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard slash.count == 2, !slash[0].isEmpty, !slash[1].isEmpty else { return nil }
        type = String(slash[0])
        subtype = String(slash[1])
        parameters = [:]
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            var value = String(pair[1].trimmingWhitespace())
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            parameters[pair[0].trimmingWhitespace().lowercased()] = value
        }
    }

    var essence: String { type + "/" + subtype }

    /// Whether a `charset` parameter, if any, names UTF-8.
    var isUTF8: Bool {
        guard let charset = parameters["charset"] else { return true }
        return charset.lowercased() == "utf-8" || charset.lowercased() == "utf8"
    }
}

/// The response media types of GraphQL over HTTP.
public enum GraphQLMediaType: String, Sendable {
    case graphQLResponse = "application/graphql-response+json"
    case json = "application/json"

    /// The `Content-Type` header value, with the charset.
    public var contentType: String {
        switch self {
        case .graphQLResponse: "application/graphql-response+json; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        }
    }

    /// The headers of a GraphQL response: this `Content-Type`, and `Cache-Control: no-store`
    /// (responses carry session tokens and user data: no cache may keep them). Built per
    /// response, not one shared value: every thread's responses would then count references on
    /// the same memory.
    public var headers: HTTPHeaders {
        HTTPHeaders([HTTPHeaders.Field(name: "Content-Type", value: contentType), Self.noStore])
    }

    static let noStore = HTTPHeaders.Field(name: "Cache-Control", value: "no-store")

    /// Picks the response type from an `Accept` header (GraphQL over HTTP §Accept):
    /// no header means `application/json`; wildcards mean `application/json`; at
    /// equal quality `application/graphql-response+json` wins; nil if nothing fits.
    public static func negotiate(accept: String?) -> GraphQLMediaType? {
        guard let accept, !accept.trimmingWhitespace().isEmpty else { return .json }
        if accept == "*/*" || accept == "application/json" { return .json }
        var best: (type: GraphQLMediaType, quality: Double, rank: Int)? = nil
        for entry in accept.split(separator: ",") {
            guard let media = MediaType(entry) else { continue }
            let quality = media.parameters["q"].flatMap(Double.init) ?? 1
            guard quality > 0, media.isUTF8 else { continue }
            let candidate: (GraphQLMediaType, Int)?
            switch (media.type, media.subtype) {
            case ("application", "graphql-response+json"): candidate = (.graphQLResponse, 3)
            case ("application", "json"): candidate = (.json, 2)
            case ("application", "*"), ("*", "*"): candidate = (.json, 1)
            default: candidate = nil
            }
            guard let (type, rank) = candidate else { continue }
            if best == nil || quality > best!.quality || (quality == best!.quality && rank > best!.rank) {
                best = (type, quality, rank)
            }
        }
        return best?.type
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
