import Foundation

/// What the SDK selects on `User` from one server: the built-in fields and the fields the app
/// declares there (`GATEHOUSE_USER_FIELDS`).
///
/// The SDK cannot know the declared fields' names in advance, so it reads them from the server's
/// schema (introspection of `User`): every field that is not built in (``User/builtInFields``)
/// and whose type is a scalar or an enum, or a list of them (what a declared field may be; a
/// built-in field added to a newer server is then read as a declared one rather than breaking
/// the query, unless it is an object, which is left out).
struct UserSelection: Sendable, Hashable {
    /// The declared fields, in the schema's order.
    let declared: [String]

    /// The `UserFields` fragment every operation that returns a user selects.
    var fragment: String { User.fragment(declared: declared) }

    /// Reads a user from the JSON of this selection.
    func user(_ json: JSONValue) throws(GatehouseError) -> User { try User(json: json, declared: declared) }

    /// The question for the declared fields: `User`'s fields with the kinds of their types, three
    /// wrappers deep (a declared `[T!]` is a LIST of a NON_NULL of T).
    static let query =
        "query UserFieldNames { __type(name: \"User\") { fields { name type { kind ofType { kind ofType { kind ofType { kind } } } } } } }"

    /// The selection the answer to ``query`` describes.
    init(answer data: JSONValue) throws(GatehouseError) {
        guard let fields = data["__type"]?["fields"]?.array else {
            throw .server(code: nil, message: "The server's schema has no User type.")
        }
        var declared: [String] = []
        for field in fields {
            guard let name = field["name"]?.string, !User.builtInFields.contains(name), Self.isName(name) else { continue }
            var type = field["type"]
            while let kind = type?["kind"]?.string, kind == "NON_NULL" || kind == "LIST" { type = type?["ofType"] }
            guard let kind = type?["kind"]?.string, kind == "SCALAR" || kind == "ENUM" else { continue }
            declared.append(name)
        }
        self.init(declared: declared)
    }

    init(declared: [String]) {
        self.declared = declared
    }

    /// Whether `error` is the server's refusal of a field of this selection that `User` no longer
    /// has (the server restarted with the field removed from its fields file): a validation
    /// error, so nothing was done, and the operation may run again with a new selection.
    func isOutdated(by error: GatehouseError) -> Bool {
        // "Cannot query field "bio" on type "User"." with perhaps a suggestion after it.
        guard case .server(nil, let message) = error, message.hasPrefix(Self.unknownFieldPrefix) else { return false }
        let rest = message.dropFirst(Self.unknownFieldPrefix.count)
        guard let quote = rest.firstIndex(of: "\""), rest[quote...].hasPrefix("\" on type \"User\".") else { return false }
        return declared.contains(String(rest[..<quote]))
    }

    private static let unknownFieldPrefix = "Cannot query field \""

    /// A GraphQL name (spec §2.1.9), not one of introspection's (`__`): what may be spliced into
    /// a query's text.
    private static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !text.hasPrefix("__") else { return false }
        let letters = { (c: Unicode.Scalar) in c == "_" || ("A"..."Z").contains(c) || ("a"..."z").contains(c) }
        return letters(first) && text.unicodeScalars.allSatisfy { letters($0) || ("0"..."9").contains($0) }
    }
}
