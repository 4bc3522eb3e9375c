import TestSupport
import Foundation
import GatehouseClient
import Testing

/// The default store: owner-only files, written atomically.
struct FileSessionStoreTests {
    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func filesAreOwnerOnlyAndTheDirectoryPrivate() throws {
        let base = TemporaryDirectory.url(prefix: "gh-store")
        defer { try? FileManager.default.removeItem(at: base) }
        let store = FileSessionStore(directory: base.appendingPathComponent("a/b/store"))
        #expect(try store.read(.session) == nil)
        try store.write(Data("one".utf8), for: .session)
        try store.write(Data("two".utf8), for: .session)
        #expect(try store.read(.session) == Data("two".utf8))
        #expect(try mode(store.directory) == 0o700)
        #expect(try mode(store.directory.appendingPathComponent(SessionStoreKey.session.rawValue)) == 0o600)
        // Only the final files: no temporary left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == ["session.json"])
        try store.remove(.session)
        try store.remove(.session)  // removing a missing key is fine
        #expect(try store.read(.session) == nil)
    }

    @Test func anExistingWideDirectoryIsTightened() throws {
        let base = TemporaryDirectory.url(prefix: "gh-store")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: base.path)
        let store = FileSessionStore(directory: base)
        try store.write(Data("x".utf8), for: .installationId)
        #expect(try mode(base) == 0o700)
        #expect(try mode(base.appendingPathComponent("installation-id")) == 0o600)
    }

    @Test func theDefaultDirectoryIsPerServer() {
        let a = FileSessionStore.defaultDirectory(for: URL(string: "http://127.0.0.1:1337/graphql")!)
        let b = FileSessionStore.defaultDirectory(for: URL(string: "https://auth.example.com/graphql")!)
        #expect(a.lastPathComponent == "127.0.0.1-1337")
        #expect(b.lastPathComponent == "auth.example.com-443")
        #expect(a.deletingLastPathComponent().lastPathComponent == "Gatehouse")
    }
}
