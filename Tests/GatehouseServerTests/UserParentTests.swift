import Auth
@testable import AuthGraphQL
import Foundation
import GraphQL
import Testing

/// Every `User` field reads its parent with `AuthGraphQL.user`, which compares the parent's type
/// with `User` before it falls back to the runtime's cast: a user comes out as it went in, by
/// either way, and any other parent is the field's error.
@Suite struct UserParentTests {
    @Test func readsAUserParentAndRefusesAnyOther() throws {
        let user = User(
            objectId: "u1", username: "ada", email: "ada@example.com", emailVerified: true, acl: ACL(),
            createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 2), displayName: "Ada",
            fields: ["bio": "Counts."])
        let read = try AuthGraphQL.user(.value(user), "bio")
        #expect(read == user && read.displayName == "Ada" && read.fieldValue("bio") == "Counts.")
        // Not a `User` by type, but one by the runtime's cast.
        let optional: User? = user
        #expect(try AuthGraphQL.user(.value(optional), "bio") == user)
        for other: ResolvedValue in [.value(3), .value("ada"), .string("ada"), .null] {
            #expect(throws: GraphQLError("Resolver for User.bio expected a parent of type User.")) {
                try AuthGraphQL.user(other, "bio")
            }
        }
    }
}
