import Auth
import Foundation
import Testing

/// ACLs are read and written with the JSON target: jsonb's usual shape reads as Foundation
/// reads it, and the text written reads back as the same ACL.
@Suite struct ACLTextTests {
    static let texts = [
        "{}", " { } ",
        #"{"*": {"read": true}, "abc123DEF0": {"read": true, "write": true}}"#,
        #"{"role:Admins": {"write": true}, "u1": {"read": false, "write": false}, "*": {"read": true, "write": false}}"#,
        #"{"q\"uote\\d\/": {"read": true}, "ünï": {"write": true}}"#,
        #"{"u": {"read": true, "other": false}}"#,
        #"{"a": {}, "tail\\": {"write": true}}"#,
    ]

    @Test(arguments: texts)
    func readsAsFoundationDoes(_ text: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let acl = ACL(jsonText: text)
        var entries: [String: ACL.Access] = [:]
        for (userId, access) in acl.users { entries[userId] = access }
        for (roleName, access) in acl.roles { entries["role:" + roleName] = access }
        if let publicAccess = acl.publicAccess { entries["*"] = publicAccess }
        #expect(Set(entries.keys) == Set(object.keys))
        for (key, access) in entries {
            let flags = try #require(object[key] as? [String: Any])
            #expect(access.read == (flags["read"] as? Bool == true), "\(key)")
            #expect(access.write == (flags["write"] as? Bool == true), "\(key)")
        }
        #expect(ACL(jsonText: acl.jsonText) == acl)
    }

    /// Escaped keys are read; only `true` grants; text that is not a JSON object grants nothing.
    @Test(arguments: [
        (#"{"\u0041": {"read": true}}"#, ACL(users: [("A", .init(read: true, write: false))])),
        (#"{"u": {"read": 1}}"#, ACL(users: [("u", .init(read: false, write: false))])),
        (#"{"u": "x"}"#, ACL()), (#"[]"#, ACL()), (#"{"u": {"read": true}"#, ACL()),
        (#"{"u": {"read": true}} x"#, ACL()), ("", ACL()), (#"{"u": {"read": tru}}"#, ACL()),
        (#"{"u": {"read": truex}}"#, ACL()), ("{\"u\u{1}\": {}}", ACL()),
    ])
    func otherShapes(_ text: String, _ expected: ACL) {
        #expect(ACL(jsonText: text) == expected)
    }

    @Test func aclFromTextSortsAndSplitsEntries() {
        let acl = ACL(jsonText: #"{"zz": {"read": true}, "*": {"read": true}, "role:R": {"write": true}, "aa": {"read": true, "write": true}}"#)
        #expect(acl.users.map(\.userId) == ["aa", "zz"])
        #expect(acl.users.map(\.access) == [.init(read: true, write: true), .init(read: true, write: false)])
        #expect(acl.roles.map(\.roleName) == ["R"] && acl.roles[0].access == .init(read: false, write: true))
        #expect(acl.publicAccess == .init(read: true, write: false))
        // Escaped keys read as their unescaped text.
        #expect(ACL(jsonText: #"{"\u0061a": {"read": true, "write": true}}"#).users.map(\.userId) == ["aa"])
        #expect(ACL(jsonText: acl.jsonText) == acl)
    }
}
