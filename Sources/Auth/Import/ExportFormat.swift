import Foundation
import JSON
import Sodium

/// The exports the importer reads, and how each maps a record to an ``ImportRecord``.
public enum ExportFormat: Sendable, Equatable {
    /// `firebase auth:export` as JSON (`{"users": […]}`), with the project's password hash
    /// parameters (nil: the export's hashes cannot be kept; records with one are refused).
    case firebase(FirebaseScrypt.Parameters?)
    /// A Parse Server `_User` export: JSON lines, or `{"results": […]}`.
    case parse

    /// Firebase's provider ids that are `authData` keys of Gatehouse's own providers; others are
    /// kept as they are (generic providers), except `password` (the email and password themselves).
    static let firebaseProviders = ["google.com": "google", "apple.com": "apple"]

    /// The record `json` (starting on `line`) describes, or why it cannot be imported.
    func record(_ json: JSON, line: Int) throws(ImportRefusal) -> ImportRecord {
        guard let object = json.objectValue else { throw ImportRefusal("a record must be a JSON object") }
        switch self {
        case .firebase(let parameters): return try Self.firebaseRecord(object, line: line, parameters: parameters)
        case .parse: return try Self.parseRecord(object, line: line)
        }
    }

    // MARK: Firebase

    private static func firebaseRecord(
        _ object: JSONObject, line: Int, parameters: FirebaseScrypt.Parameters?
    ) throws(ImportRefusal) -> ImportRecord {
        let id = try objectId(object["localId"], field: "localId")
        let email = try optionalString(object["email"], field: "email")
        var hash: String? = nil
        if let exported = try optionalString(object["passwordHash"], field: "passwordHash") {
            guard let parameters else {
                throw ImportRefusal("has a passwordHash but the project's hash parameters were not given (--hash-key …)")
            }
            guard let saltText = try optionalString(object["salt"], field: "salt") else {
                throw ImportRefusal("has a passwordHash without its salt")
            }
            guard let hashBytes = FirebaseScrypt.decode(exported), let salt = FirebaseScrypt.decode(saltText) else {
                throw ImportRefusal("passwordHash or salt is not base64")
            }
            guard let stored = FirebaseScrypt.storedHash(hash: hashBytes, salt: salt, parameters: parameters) else {
                throw ImportRefusal("passwordHash is not a hash of this project's signer key (\(hashBytes.count) bytes, not \(parameters.signerKey.count))")
            }
            hash = stored
        }
        var identities: [ImportRecord.Identity] = []
        if let providers = object["providerUserInfo"], !providers.isNull {
            guard let list = providers.arrayValue else { throw ImportRefusal("providerUserInfo must be an array") }
            for provider in list {
                guard let providerId = provider["providerId"]?.stringValue, let rawId = provider["rawId"]?.stringValue,
                      !providerId.isEmpty, !rawId.isEmpty
                else { throw ImportRefusal("each providerUserInfo entry needs a providerId and a rawId") }
                if providerId == "password" { continue }
                identities.append(.init(provider: firebaseProviders[providerId] ?? providerId, providerUserId: rawId))
            }
        }
        let created = try firebaseTime(object["createdAt"], field: "createdAt") ?? Date()
        // The export says whether, not since when: the import is the first time Gatehouse knows it.
        let disabled = try optionalBool(object["disabled"], field: "disabled") ?? false
        return try checked(ImportRecord(
            line: line, objectId: id, username: email ?? id, email: email,
            emailVerified: try optionalBool(object["emailVerified"], field: "emailVerified") ?? false,
            passwordHash: hash, displayName: try optionalString(object["displayName"], field: "displayName"),
            photoURL: try optionalString(object["photoUrl"], field: "photoUrl"), identities: identities,
            createdAt: created, disabledAt: disabled ? Date() : nil,
            disabledReason: disabled ? firebaseDisabledReason : nil))
    }

    /// The reason an imported user that Firebase had disabled shows to operators.
    static let firebaseDisabledReason = "disabled in Firebase before the import"

    /// Firebase's times: milliseconds since 1970, as a string or a number.
    private static func firebaseTime(_ value: JSON?, field: String) throws(ImportRefusal) -> Date? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue, let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        if let number = value.doubleValue { return Date(timeIntervalSince1970: number / 1000) }
        throw ImportRefusal("\(field) must be milliseconds since 1970")
    }

    // MARK: Parse

    private static func parseRecord(_ object: JSONObject, line: Int) throws(ImportRefusal) -> ImportRecord {
        let id = try objectId(object["objectId"] ?? object["_id"], field: "objectId")
        guard let username = try optionalString(object["username"], field: "username") else {
            throw ImportRefusal("has no username")
        }
        var hash: String? = nil
        if let stored = try optionalString(object["_hashed_password"], field: "_hashed_password") {
            guard HashKinds.kind(of: stored) != nil else {
                throw ImportRefusal("_hashed_password is of a kind Gatehouse does not verify (bcrypt and argon2id are)")
            }
            hash = stored
        }
        var identities: [ImportRecord.Identity] = []
        // authData (Parse's REST and PostgreSQL form) or _auth_data_<provider> (its MongoDB form).
        var providers: [(String, JSON)] = []
        if let authData = object["authData"], !authData.isNull {
            guard let entries = authData.objectValue else { throw ImportRefusal("authData must be an object") }
            providers += zip(entries.keys, entries.values).map { ($0, $1) }
        }
        for (key, value) in zip(object.keys, object.values) where key.hasPrefix("_auth_data_") {
            providers.append((String(key.dropFirst("_auth_data_".count)), value))
        }
        for (provider, data) in providers where !data.isNull {
            guard !provider.isEmpty, let providerUserId = data["id"]?.stringValue, !providerUserId.isEmpty else {
                throw ImportRefusal("authData.\(provider) needs an id")
            }
            // An anonymous user's id is Gatehouse's own: kept like any provider's.
            identities.append(.init(provider: provider, providerUserId: providerUserId))
        }
        let created = try parseTime(object["createdAt"] ?? object["_created_at"], field: "createdAt") ?? Date()
        return try checked(ImportRecord(
            line: line, objectId: id, username: username, email: try optionalString(object["email"], field: "email"),
            emailVerified: try optionalBool(object["emailVerified"], field: "emailVerified") ?? false,
            passwordHash: hash, identities: identities, createdAt: created,
            updatedAt: try parseTime(object["updatedAt"] ?? object["_updated_at"], field: "updatedAt")))
    }

    /// Parse's times: ISO 8601 text, `{"__type": "Date", "iso": …}` or MongoDB's `{"$date": …}`.
    private static func parseTime(_ value: JSON?, field: String) throws(ImportRefusal) -> Date? {
        guard let value, !value.isNull else { return nil }
        let text = value.stringValue ?? value["iso"]?.stringValue ?? value["$date"]?.stringValue
        if let text {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: text) { return date }
        }
        if let milliseconds = value["$date"]?.doubleValue { return Date(timeIntervalSince1970: milliseconds / 1000) }
        throw ImportRefusal("\(field) must be an ISO 8601 time")
    }

    // MARK: Fields

    private static func objectId(_ value: JSON?, field: String) throws(ImportRefusal) -> String {
        guard let value, !value.isNull else { throw ImportRefusal("has no \(field)") }
        guard let id = value.stringValue, ImportRecord.isValidObjectId(id) else {
            throw ImportRefusal("\(field) must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -")
        }
        return id
    }

    private static func optionalString(_ value: JSON?, field: String) throws(ImportRefusal) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ImportRefusal("\(field) must be a string") }
        guard !text.contains("\0") else { throw ImportRefusal("\(field) contains a NUL character") }
        return text.isEmpty ? nil : text
    }

    private static func optionalBool(_ value: JSON?, field: String) throws(ImportRefusal) -> Bool? {
        guard let value, !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw ImportRefusal("\(field) must be true or false") }
        return flag
    }

    /// The record if its values pass the checks a sign-up or profile change applies.
    private static func checked(_ record: ImportRecord) throws(ImportRefusal) -> ImportRecord {
        var record = record
        guard record.username.dropFirst(FieldLimits.usernameCharacters).isEmpty else {
            throw ImportRefusal("username is longer than \(FieldLimits.usernameCharacters) characters")
        }
        if let email = record.email {
            guard email.utf8.count <= FieldLimits.emailBytes, AuthCore.isValidEmail(email) else {
                throw ImportRefusal("email is not a valid address")
            }
        }
        for identity in record.identities where (identity.provider + identity.providerUserId).contains("\0") {
            throw ImportRefusal("the \(identity.provider.replacingOccurrences(of: "\0", with: "")) id contains a NUL character")
        }
        do {
            record.displayName = try record.displayName.map { name throws(AuthError) in try UserFields.checkDisplayName(.string(name)) }
            record.photoURL = try record.photoURL.map { url throws(AuthError) in try UserFields.checkPhotoURL(.string(url)) }
        } catch {
            throw ImportRefusal(error.message)
        }
        return record
    }
}
