@testable import Auth
import Testing

/// The stored ACL text is read without Foundation when it has jsonb's usual shape, and the
/// result is the same as through JSONSerialization; other shapes still go through it.
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
    func fastPathAgreesWithFoundation(_ text: String) throws {
        let entries = try #require(JSONText.flagEntries(text))
        let object = try #require(JSONText.object(text))
        #expect(Set(entries.map(\.key)) == Set(object.keys))
        for entry in entries {
            let flags = try #require(object[entry.key] as? [String: Any])
            #expect(entry.read == (flags["read"] as? Bool == true), "\(entry.key)")
            #expect(entry.write == (flags["write"] as? Bool == true), "\(entry.key)")
        }
    }

    @Test(arguments: [
        #"{"\u0041": {"read": true}}"#, #"{"u": {"read": 1}}"#, #"{"u": "x"}"#, #"[]"#, #"{"u": {"read": true}"#,
        #"{"u": {"read": true}} x"#, "", #"{"u": {"read": tru}}"#, #"{"u": {"read": truex}}"#, "{\"u\u{1}\": {}}",
    ])
    func otherShapesAreLeftToFoundation(_ text: String) {
        #expect(JSONText.flagEntries(text) == nil)
    }

    @Test func aclFromTextSortsAndSplitsEntries() {
        let acl = ACL(jsonText: #"{"zz": {"read": true}, "*": {"read": true}, "role:R": {"write": true}, "aa": {"read": true, "write": true}}"#)
        #expect(acl.users.map(\.userId) == ["aa", "zz"])
        #expect(acl.users.map(\.access) == [.init(read: true, write: true), .init(read: true, write: false)])
        #expect(acl.roles.map(\.roleName) == ["R"] && acl.roles[0].access == .init(read: false, write: true))
        #expect(acl.publicAccess == .init(read: true, write: false))
        // Escaped keys take the Foundation path and give the same ACL.
        #expect(ACL(jsonText: #"{"\u0061a": {"read": true, "write": true}}"#).users.map(\.userId) == ["aa"])
        #expect(ACL(jsonText: acl.jsonText) == acl)
    }
}
