import Foundation

/// The signed-in user's profile: the display name and photo every user has, and the fields the
/// app declares on the server (`GATEHOUSE_USER_FIELDS`, an SDL file that extends `User`).
///
/// ```swift
/// try await auth.updateProfile(displayName: "Alice Liddell", photoURL: URL(string: "https://example.com/alice.png"))
/// try await auth.update(fields: ["bio": "Down the rabbit hole.", "newsletter": .bool(true)])
/// try await auth.clearProfile([.photoURL])
/// auth.currentUser?.fields["bio"]  // "Down the rabbit hole."
/// ```
///
/// Each change stores the updated user and ``authStateChanges`` yields it. The server checks
/// every value: a display name of 1 to 256 characters after trimming, a photo at an `https` URL
/// (or `http` on a loopback host) of at most 2,048 bytes, and the declared fields' own limits.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// Sets the signed-in user's display name, photo URL or both, and returns the updated
    /// user. A `nil` argument leaves that field as it is; ``clearProfile(_:)`` removes one.
    /// Nothing to change: returns the stored user without a request.
    ///
    /// - Throws: ``GatehouseError/invalidFieldValue(message:)`` (`displayName must not be empty.`,
    ///   `photoURL must be an https URL.`), ``GatehouseError/fieldTooLong(message:)``,
    ///   ``GatehouseError/sessionInvalid``, or a network, storage or server error.
    @discardableResult
    public func updateProfile(displayName: String? = nil, photoURL: URL? = nil) async throws(GatehouseError) -> User {
        var fields: [String: JSONValue] = [:]
        if let displayName { fields[ProfileField.displayName.rawValue] = .string(displayName) }
        if let photoURL { fields[ProfileField.photoURL.rawValue] = .string(photoURL.absoluteString) }
        return try await changeProfile(fields)
    }

    /// Removes the signed-in user's display name, photo URL or both, and returns the updated user.
    ///
    /// - Throws: ``GatehouseError/sessionInvalid``, or a network, storage or server error.
    @discardableResult
    public func clearProfile(_ fields: Set<ProfileField>) async throws(GatehouseError) -> User {
        try await changeProfile(Dictionary(uniqueKeysWithValues: fields.map { ($0.rawValue, JSONValue.null) }))
    }

    /// Sets fields the app declares on the server (``userFieldNames()``) for the signed-in user,
    /// in one change, and returns the updated user; `.null` clears a field. A value of the wrong
    /// type is refused by the server as a GraphQL error naming the field.
    ///
    /// ```swift
    /// try await auth.update(fields: ["favoriteColors": ["teal", "amber"], "birthday": .null])
    /// ```
    ///
    /// - Throws: ``GatehouseError/unknownUserField(_:)`` (no request is made) for a name the server
    ///   does not declare, ``GatehouseError/fieldNotWritable(field:)`` for a field only the server
    ///   may set (`@serverOnly`, `@hidden`), ``GatehouseError/invalidFieldValue(message:)`` or
    ///   ``GatehouseError/fieldTooLong(message:)`` past a field's limit, ``GatehouseError/sessionInvalid``,
    ///   or a network, storage or server error.
    @discardableResult
    public func update(fields: [String: JSONValue]) async throws(GatehouseError) -> User {
        var selection = try await userSelection()
        if fields.keys.contains(where: { !selection.declared.contains($0) }) {
            // Perhaps declared since this client asked: ask again once.
            userSelections.forget(selection)
            selection = try await userSelection()
            if let unknown = fields.keys.sorted().first(where: { !selection.declared.contains($0) }) {
                throw .unknownUserField(unknown)
            }
        }
        return try await changeProfile(fields)
    }

    /// The names of the fields the app declares on the server's `User`, in the order of the
    /// server's schema (asked once per client, then kept; asked again when an answer shows a
    /// field removed, or ``update(fields:)`` names one not yet known). A field the signed-in user
    /// may not read (`@hidden`) is listed too: ``User/fields`` never has its value.
    ///
    /// - Throws: a network or server error.
    public func userFieldNames() async throws(GatehouseError) -> [String] {
        try await userSelection().declared
    }

    /// `updateUser` with profile `fields`; the stored user when there are none.
    private func changeProfile(_ fields: [String: JSONValue]) async throws(GatehouseError) -> User {
        let session = try requireSession()
        guard !fields.isEmpty else { return session.user }
        return try await updateUser(fields, currentPassword: nil).user
    }

    /// The ``UserSelection`` of this server, asked for on first use.
    func userSelection() async throws(GatehouseError) -> UserSelection {
        if let known = userSelections.current { return known }
        let selection = try UserSelection(answer: try await transport.execute(UserSelection.query))
        userSelections.keep(selection)
        return selection
    }

    /// Runs `operation` with this server's ``UserSelection``; when the server refuses a declared
    /// field it no longer has (a validation error: nothing was done), once more with a new one.
    func withUserSelection<Result>(_ operation: (UserSelection) async throws(GatehouseError) -> Result)
        async throws(GatehouseError) -> Result
    {
        let selection = try await userSelection()
        do {
            return try await operation(selection)
        } catch {
            guard selection.isOutdated(by: error) else { throw error }
            userSelections.forget(selection)
            return try await operation(try await userSelection())
        }
    }
}
