@testable import GraphQL
import Testing

/// Spec §5.6.1 Values of Correct Type, §5.6.4 Input Object Required Fields, `@oneOf`.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct ValuesOfCorrectTypeRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: 2) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: -2147483648) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { booleanArgField(booleanArg: true) stringArgField(stringArg: \"foo\") floatArgField(floatArg: 1.1) idArgField(idArg: \"someIdString\") } }",
            []),
        ValidationCase(
            "{ complicatedArgs { floatArgField(floatArg: 1) idArgField(idArg: 1) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { customArgField(customArg: [{deep: [1, \"x\", $v]}]) } }",
            []),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: SIT) } }",
            []),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: null) } complicatedArgs { intArgField(intArg: null) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { stringArgField(stringArg: 1) } }",
            [
                "String cannot represent a non string value: 1 (1:47)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringArgField(stringArg: 1.0) } }",
            [
                "String cannot represent a non string value: 1.0 (1:47)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringArgField(stringArg: true) } }",
            [
                "String cannot represent a non string value: true (1:47)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringArgField(stringArg: BAR) } }",
            [
                "String cannot represent a non string value: BAR (1:47)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: \"3\") } }",
            [
                "Int cannot represent non-integer value: \"3\" (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: 829384293849283498239482938) } }",
            [
                "Int cannot represent non 32-bit signed integer value: 829384293849283498239482938 (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: FOO) } }",
            [
                "Int cannot represent non-integer value: FOO (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: 3.0) } }",
            [
                "Int cannot represent non-integer value: 3.0 (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: 3.333) } }",
            [
                "Int cannot represent non-integer value: 3.333 (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { floatArgField(floatArg: \"3.333\") } }",
            [
                "Float cannot represent non numeric value: \"3.333\" (1:45)",
            ]),
        ValidationCase(
            "{ complicatedArgs { floatArgField(floatArg: true) } }",
            [
                "Float cannot represent non numeric value: true (1:45)",
            ]),
        ValidationCase(
            "{ complicatedArgs { floatArgField(floatArg: FOO) } }",
            [
                "Float cannot represent non numeric value: FOO (1:45)",
            ]),
        ValidationCase(
            "{ complicatedArgs { booleanArgField(booleanArg: 2) } }",
            [
                "Boolean cannot represent a non boolean value: 2 (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { booleanArgField(booleanArg: 1.0) } }",
            [
                "Boolean cannot represent a non boolean value: 1.0 (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { booleanArgField(booleanArg: \"true\") } }",
            [
                "Boolean cannot represent a non boolean value: \"true\" (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { booleanArgField(booleanArg: TRUE) } }",
            [
                "Boolean cannot represent a non boolean value: TRUE (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { idArgField(idArg: 1.0) } }",
            [
                "ID cannot represent a non-string and non-integer value: 1.0 (1:39)",
            ]),
        ValidationCase(
            "{ complicatedArgs { idArgField(idArg: true) } }",
            [
                "ID cannot represent a non-string and non-integer value: true (1:39)",
            ]),
        ValidationCase(
            "{ complicatedArgs { idArgField(idArg: SOMETHING) } }",
            [
                "ID cannot represent a non-string and non-integer value: SOMETHING (1:39)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: 2) } }",
            [
                "Enum \"DogCommand\" cannot represent non-enum value: 2. (1:37)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: 1.0) } }",
            [
                "Enum \"DogCommand\" cannot represent non-enum value: 1.0. (1:37)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: \"SIT\") } }",
            [
                "Enum \"DogCommand\" cannot represent non-enum value: \"SIT\". Did you mean the enum value \"SIT\"? (1:37)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: true) } }",
            [
                "Enum \"DogCommand\" cannot represent non-enum value: true. (1:37)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: JUGGLE) } }",
            [
                "Value \"JUGGLE\" does not exist in \"DogCommand\" enum. (1:37)",
            ]),
        ValidationCase(
            "{ dog { doesKnowCommand(dogCommand: sit) } }",
            [
                "Value \"sit\" does not exist in \"DogCommand\" enum. Did you mean the enum value \"SIT\"? (1:37)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringListArgField(stringListArg: [\"one\", null, \"two\"]) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { stringListArgField(stringListArg: []) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { stringListArgField(stringListArg: \"one\") } }",
            []),
        ValidationCase(
            "{ complicatedArgs { stringListArgField(stringListArg: [\"one\", 2]) } }",
            [
                "String cannot represent a non string value: 2 (1:63)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringListArgField(stringListArg: 1) } }",
            [
                "String cannot represent a non string value: 1 (1:55)",
            ]),
        ValidationCase(
            "{ complicatedArgs { stringListNonNullArgField(stringListNonNullArg: [\"one\", null]) } }",
            [
                "Expected value of type \"String!\", found null. (1:77)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: [1, 2]) } }",
            [
                "Int cannot represent non-integer value: [1, 2] (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { intArgField(intArg: {a: 1}) } }",
            [
                "Int cannot represent non-integer value: {a: 1} (1:41)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req1: \"one\", req2: \"two\") } }",
            [
                "Int cannot represent non-integer value: \"one\" (1:40)",
                "Int cannot represent non-integer value: \"two\" (1:53)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req1: null, req2: 2) } }",
            [
                "Expected value of type \"Int!\", found null. (1:40)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { requiredField: true }) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { intField: 4 }) } }",
            [
                "Field \"ComplexInput.requiredField\" of required type \"Boolean!\" was not provided. (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { stringListField: [\"one\", 2], requiredField: true }) } }",
            [
                "String cannot represent a non string value: 2 (1:76)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { requiredField: true, invalidField: \"value\" }) } }",
            [
                "Field \"invalidField\" is not defined by type \"ComplexInput\". Did you mean \"intField\"? (1:72)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { requiredField: true, strinField: \"value\" }) } }",
            [
                "Field \"strinField\" is not defined by type \"ComplexInput\". Did you mean \"stringField\", \"intField\", or \"stringListField\"? (1:72)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: { requiredField: null, nonNullField: null }) } }",
            [
                "Expected value of type \"Boolean!\", found null. (1:66)",
                "Expected value of type \"Boolean!\", found null. (1:86)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: \"x\") } }",
            [
                "Expected value of type \"ComplexInput\", found \"x\". (1:49)",
            ]),
        ValidationCase(
            "{ dog @include(if: \"yes\") { name @skip(if: ENUM) } }",
            [
                "Boolean cannot represent a non boolean value: \"yes\" (1:20)",
                "Boolean cannot represent a non boolean value: ENUM (1:44)",
            ]),
        ValidationCase(
            "query Q($a: Int = 1, $b: String = \"ok\", $c: ComplexInput = {requiredField: true, intField: 3}) { dog { name } }",
            []),
        ValidationCase(
            "query Q($a: Int = \"one\", $b: String = 4, $c: ComplexInput = \"NotVeryComplex\") { dog { name } }",
            [
                "Int cannot represent non-integer value: \"one\" (1:19)",
                "String cannot represent a non string value: 4 (1:39)",
                "Expected value of type \"ComplexInput\", found \"NotVeryComplex\". (1:61)",
            ]),
        ValidationCase(
            "query Q($a: ComplexInput = {requiredField: 123, intField: \"abc\"}) { dog { name } }",
            [
                "Boolean cannot represent a non boolean value: 123 (1:44)",
                "Int cannot represent non-integer value: \"abc\" (1:59)",
            ]),
        ValidationCase(
            "query Q($a: Int! = null, $b: [String] = [\"one\", 2]) { dog { name } }",
            [
                "Expected value of type \"Int!\", found null. (1:20)",
                "String cannot represent a non string value: 2 (1:49)",
            ]),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: { stringField: \"abc\" }) } }",
            []),
        ValidationCase(
            "query Q($s: String!) { complicatedArgs { oneOfArgField(oneOfArg: { stringField: $s }) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: { stringField: \"abc\", intField: 123 }) } }",
            [
                "OneOf Input Object \"OneOfInput\" must specify exactly one key. (1:45)",
            ]),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: {}) } }",
            [
                "OneOf Input Object \"OneOfInput\" must specify exactly one key. (1:45)",
            ]),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: { stringField: null }) } }",
            [
                "Field \"OneOfInput.stringField\" must be non-null. (1:45)",
            ]),
        ValidationCase(
            "query Q($s: String) { complicatedArgs { oneOfArgField(oneOfArg: { stringField: $s }) } }",
            [
                "Variable \"s\" must be non-nullable to be used for OneOf Input Object \"OneOfInput\". (1:65)",
            ]),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: { stringField: $undefined }) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { oneOfArgField(oneOfArg: { intField: \"x\" }) } }",
            [
                "Int cannot represent non-integer value: \"x\" (1:57)",
            ]),
        ValidationCase(
            "{ complicatedArgs { unknownField(arg: \"x\", o: {a: 1}) intArgField(unknownArg: 1.5) } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: ValuesOfCorrectTypeRule.self)
    }
}
