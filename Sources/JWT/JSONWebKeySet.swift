internal import JSON

/// A JSON Web Key Set (RFC 7517 §5), as an OpenID provider publishes at its `jwks_uri`.
public struct JSONWebKeySet: Sendable {
    /// The keys this library can verify with, in document order.
    public let keys: [JSONWebKey]

    /// Parses `{"keys": [...]}`. Keys of another `kty` or EC curve are skipped (a provider may
    /// publish keys we never need); a malformed key of a supported type makes the set invalid.
    public init(data: [UInt8]) throws(JWTError) {
        let document: JSON
        do { document = try JSONParser().parse(data) } catch { throw JWTError.invalidKeySet("not JSON (\(error.message))") }
        guard let members = document["keys"]?.arrayValue else { throw JWTError.invalidKeySet("\"keys\" is missing or not an array") }
        var keys: [JSONWebKey] = []
        for member in members {
            guard let object = member.objectValue else { throw JWTError.invalidKeySet("a key is not an object") }
            do {
                keys.append(try JSONWebKey(json: object))
            } catch .unsupportedKey {
                continue
            }
        }
        self.keys = keys
    }

    /// The key whose `kid` is `id`; for a nil `id`, the set's only key (nil when it has several).
    public func key(id: String?) -> JSONWebKey? {
        guard let id else { return keys.count == 1 ? keys[0] : nil }
        return keys.first { $0.keyId == id }
    }
}
