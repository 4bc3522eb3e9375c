#if canImport(Security)
import Foundation
import Security

/// A ``SessionStore`` in the Keychain: one generic-password item per key, under `service`,
/// readable only while the device is unlocked and never migrated to another device.
public struct KeychainSessionStore: SessionStore {
    /// The Keychain service name of the items, e.g. your bundle id plus `.gatehouse`.
    public let service: String
    /// An access group shared with other apps of the team, or `nil` for the app's own.
    public let accessGroup: String?

    /// Creates a store for `service` (and `accessGroup`).
    public init(service: String, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// A Keychain call that failed, with its `OSStatus`.
    public struct KeychainError: Error, CustomStringConvertible, Sendable {
        /// The status the Security framework returned.
        public let status: OSStatus
        /// The framework's message for the status.
        public var description: String {
            (SecCopyErrorMessageString(status, nil) as String?) ?? "Keychain error \(status)"
        }
    }

    private func query(_ key: SessionStoreKey) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key.rawValue,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// The item's bytes, or `nil` when there is no item.
    public func read(_ key: SessionStoreKey) throws -> Data? {
        var query = query(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
        return result as? Data
    }

    /// Adds or updates the item.
    public func write(_ data: Data, for key: SessionStoreKey) throws {
        let update: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query(key) as CFDictionary, update as CFDictionary)
        if status == errSecItemNotFound {
            var add = query(key)
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    /// Deletes the item, if any.
    public func remove(_ key: SessionStoreKey) throws {
        let status = SecItemDelete(query(key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}
#endif
