@testable import GraphQL
import Testing

/// Spec §5.1.1 Executable Definitions.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct ExecutableDefinitionsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo { dog { name } }",
            []),
        ValidationCase(
            "query Foo { dog { name } } fragment Frag on Dog { name }",
            []),
        ValidationCase(
            "query Foo { dog { name } } type Cow { name: String } extend type Dog { color: String }",
            [
                "The \"Cow\" definition is not executable. (1:28)",
                "The \"Dog\" definition is not executable. (1:54)",
            ]),
        ValidationCase(
            "schema { query: QueryRoot } type QueryRoot { test: String } extend schema @directive",
            [
                "The schema definition is not executable. (1:1)",
                "The \"QueryRoot\" definition is not executable. (1:29)",
                "The schema definition is not executable. (1:61)",
            ]),
        ValidationCase(
            "{ dog { name } } directive @foo on FIELD scalar S input I { a: Int }",
            [
                "The \"foo\" definition is not executable. (1:18)",
                "The \"S\" definition is not executable. (1:42)",
                "The \"I\" definition is not executable. (1:51)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: ExecutableDefinitionsRule.self)
    }
}
