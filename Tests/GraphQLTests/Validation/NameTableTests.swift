@testable import GraphQL
import Testing

/// `NameTable` numbers names by first insertion, below and above the size at which it
/// switches from scanning to open addressing.
struct NameTableTests {
    @Test(arguments: [1, 8, 9, 33, 200])
    func numbersNamesInInsertionOrder(_ count: Int) {
        // Short (inline) and long (allocated) strings, and non-ASCII ones.
        let names = (0..<count).map { $0 % 3 == 0 ? "name\($0)" : $0 % 3 == 1 ? "aMuchLongerFieldName\($0)" : "é\($0)" }
        var table = NameTable()
        for (number, name) in names.enumerated() {
            #expect(table.insert(name) == (number, true))
        }
        for (number, name) in names.enumerated() {
            #expect(table.insert(name) == (number, false))
            #expect(table.number(of: name) == number)
        }
        #expect(table.count == count)
        #expect(table.names == names)
        #expect(table.number(of: "absent") == nil)
        #expect(table.number(of: "") == nil)
    }

    @Test func tableFromASequenceKeepsFirstOccurrences() {
        let table = NameTable(["b", "a", "b", "c", "a"])
        #expect(table.names == ["b", "a", "c"])
        #expect(table.number(of: "c") == 2)
    }

    @Test func fragmentTableKeepsTheLastDefinitionOfAName() throws {
        let document = try parse(
            "{ dog { ...f } } fragment f on Dog { name } fragment g on Dog { barks } fragment f on Dog { nickname }")
        let fragments = FragmentTable(document)
        #expect(fragments.count == 2)
        #expect(fragments.number(of: "g") == 1)
        #expect(fragments.number(of: "h") == nil)
        #expect(fragments["f"]?.selectionSet.selections.first.map { if case .field(let field) = $0 { field.name.value } else { "" } } == "nickname")
    }

    /// More fragments than `NameTable` scans, through every rule: a cycle, duplicate
    /// names, unknown and unused fragments (messages as graphql-core's; locations at
    /// `fragment`, see Deviations.md).
    @Test func manyFragmentsThroughEveryRule() {
        let testCase = ValidationCase(
            """
            { dog { ...f0 ...f1 ...missing } }
            fragment f0 on Dog { ...f2 }
            fragment f1 on Dog { name }
            fragment f2 on Dog { ...f3 }
            fragment f3 on Dog { ...f4 }
            fragment f4 on Dog { ...f2 }
            fragment f5 on Dog { ...f6 }
            fragment f6 on Dog { barks }
            fragment f7 on Dog { nickname }
            fragment f8 on Dog { name }
            fragment f1 on Dog { barkVolume }
            fragment f9 on Dog { ...f10 }
            fragment f10 on Dog { ...f9 }
            """,
            [
                "Unknown fragment \"missing\". (1:24)",
                "Cannot spread fragment \"f2\" within itself via \"f3\", \"f4\". (4:22, 5:22, 6:22)",
                "There can be only one fragment named \"f1\". (3:10, 11:10)",
                "Cannot spread fragment \"f9\" within itself via \"f10\". (12:22, 13:23)",
                "Fragment \"f5\" is never used. (7:1)",
                "Fragment \"f6\" is never used. (8:1)",
                "Fragment \"f7\" is never used. (9:1)",
                "Fragment \"f8\" is never used. (10:1)",
                "Fragment \"f9\" is never used. (12:1)",
                "Fragment \"f10\" is never used. (13:1)",
            ])
        expectValidation(testCase)
    }
}
