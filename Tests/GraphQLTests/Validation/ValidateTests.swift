@testable import GraphQL
import Testing

/// `validate(schema:document:source:)` with every rule: errors interleaved in the
/// order graphql-js's single parallel walk reports them, and the error cap.
/// Expected errors come from graphql-core 3.2.8 with its `specified_rules`.
struct ValidateTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo($a: Int, $a: String, $unused: Dog) { dog @unknown @skip(if: $b) { name(surname: 1) name(surname: true) barks { x } meowVolume ...Frag ... on Cat { meows } } } query Foo { cat { ...Missing } } fragment Frag on Dog { name ...Frag } fragment Unused on Boolean { x }",
            [
                "There can be only one variable named \"$a\". (1:12, 1:21)",
                "Variable \"$unused\" cannot be non-input type \"Dog\". (1:41)",
                "Unknown directive \"@unknown\". (1:52)",
                "Fields \"name\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:77, 1:94)",
                "Fields \"name\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:77, 1:226)",
                "Fields \"name\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:94, 1:226)",
                "Fields \"name\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:77, 1:226)",
                "Fields \"name\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:94, 1:226)",
                "Boolean cannot represent a non boolean value: 1 (1:91)",
                "Field \"barks\" must not have a selection since type \"Boolean\" has no subfields. (1:120)",
                "Cannot query field \"meowVolume\" on type \"Dog\". Did you mean \"barkVolume\"? (1:126)",
                "Fragment cannot be spread here as objects of type \"Dog\" can never be of type \"Cat\". (1:145)",
                "Variable \"$b\" is not defined by operation \"Foo\". (1:71, 1:1)",
                "Variable \"$a\" is never used in operation \"Foo\". (1:11)",
                "Variable \"$a\" is never used in operation \"Foo\". (1:20)",
                "Variable \"$unused\" is never used in operation \"Foo\". (1:32)",
                "There can be only one operation named \"Foo\". (1:7, 1:176)",
                "Unknown fragment \"Missing\". (1:191)",
                "Cannot spread fragment \"Frag\" within itself. (1:231)",
                "Fragment \"Unused\" cannot condition on non composite type \"Boolean\". (1:260)",
                "Fragment \"Unused\" is never used. (1:241)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req1: \"x\", req1: 2) complexArgField(complexArg: {intField: 1, intField: \"x\", bad: 1}) oneOfArgField(oneOfArg: {}) } } subscription { importantEmails notImportantEmails } { dog }",
            [
                "This anonymous operation must be the only defined operation. (1:1)",
                "There can be only one argument named \"req1\". (1:34, 1:45)",
                "Int cannot represent non-integer value: \"x\" (1:40)",
                "Field \"multipleReqs\" argument \"req2\" of type \"Int!\" is required, but it was not provided. (1:21)",
                "Field \"ComplexInput.requiredField\" of required type \"Boolean!\" was not provided. (1:82)",
                "There can be only one input field named \"intField\". (1:83, 1:96)",
                "Int cannot represent non-integer value: \"x\" (1:106)",
                "Field \"bad\" is not defined by type \"ComplexInput\". (1:111)",
                "OneOf Input Object \"OneOfInput\" must specify exactly one key. (1:144)",
                "This anonymous operation must be the only defined operation. (1:152)",
                "Anonymous Subscription must select only one top level field. (1:183)",
                "This anonymous operation must be the only defined operation. (1:204)",
                "Field \"dog\" of type \"Dog\" must have a selection of subfields. Did you mean \"dog { ... }\"? (1:206)",
            ]),
        ValidationCase(
            "query Q($v: Int, $w: [String]) @onField { human(id: $v) { relatives @onQuery { x: name x: iq } pets { ... on Cat { name(surname: $w) } ... on Intelligent { iq } } } } type T { f: Int }",
            [
                "The \"T\" definition is not executable. (1:168)",
                "Directive \"@onField\" may not be used on QUERY. (1:32)",
                "Directive \"@onQuery\" may not be used on FIELD. (1:69)",
                "Fields \"x\" conflict because \"name\" and \"iq\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:80, 1:88)",
                "Fragment cannot be spread here as objects of type \"Pet\" can never be of type \"Intelligent\". (1:136)",
                "Variable \"$v\" of type \"Int\" used in position expecting type \"ID\". (1:9, 1:53)",
                "Variable \"$w\" of type \"[String]\" used in position expecting type \"Boolean\". (1:18, 1:130)",
            ]),
        ValidationCase(
            "{ __schema { types { fields { type { fields { name } } } } } __typename x: __type { name } }",
            [
                "Field \"__type\" argument \"name\" of type \"String!\" is required, but it was not provided. (1:73)",
            ]),
        ValidationCase(
            standardIntrospectionQuery,
            []),
    ]

    @Test(arguments: cases)
    func allRulesInGraphQLJSOrder(_ testCase: ValidationCase) {
        expectValidation(testCase)
    }

    /// A document without a `$` in its text uses no variable, and its usage walks are
    /// skipped; a document built in code has no text to look at and is walked.
    @Test func variableUsagesOfBuiltDocumentsAreStillFound() {
        let operation = OperationDefinition(
            operation: .query,
            selectionSet: SelectionSet(selections: [
                .field(Field(name: Name("dog"), directives: [
                    Directive(name: Name("include"), arguments: [Argument(name: Name("if"), value: Value(.variable("missing")))])
                ], selectionSet: SelectionSet(selections: [.field(Field(name: Name("name")))])))
            ]))
        let errors = validate(
            schema: ValidationHarness.schema, document: Document(definitions: [.operation(operation)]),
            source: Source("{ dog { name } }"))
        #expect(errors.map(\.message) == ["Variable \"$missing\" is not defined."])
    }

    static let manyUnknownFields = "{ f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f20 f21 f22 f23 f24 f25 f26 f27 f28 f29 f30 f31 f32 f33 f34 f35 f36 f37 f38 f39 f40 f41 f42 f43 f44 f45 f46 f47 f48 f49 f50 f51 f52 f53 f54 f55 f56 f57 f58 f59 f60 f61 f62 f63 f64 f65 f66 f67 f68 f69 f70 f71 f72 f73 f74 f75 f76 f77 f78 f79 f80 f81 f82 f83 f84 f85 f86 f87 f88 f89 f90 f91 f92 f93 f94 f95 f96 f97 f98 f99 f100 f101 f102 f103 f104 f105 f106 f107 f108 f109 f110 f111 f112 f113 f114 f115 f116 f117 f118 f119 f120 f121 f122 f123 f124 f125 f126 f127 f128 f129 f130 f131 f132 f133 f134 f135 f136 f137 f138 f139 f140 f141 f142 f143 f144 f145 f146 f147 f148 f149 }"

    @Test func stopsAtOneHundredErrors() throws {
        let source = Source(Self.manyUnknownFields)
        let errors = validate(schema: ValidationHarness.schema, document: try parse(source), source: source)
        #expect(errors.count == 101)
        #expect(errors.map(\.description) == [
            "Cannot query field \"f0\" on type \"QueryRoot\". (1:3)",
            "Cannot query field \"f1\" on type \"QueryRoot\". (1:6)",
            "Cannot query field \"f2\" on type \"QueryRoot\". (1:9)",
            "Cannot query field \"f3\" on type \"QueryRoot\". (1:12)",
            "Cannot query field \"f4\" on type \"QueryRoot\". (1:15)",
            "Cannot query field \"f5\" on type \"QueryRoot\". (1:18)",
            "Cannot query field \"f6\" on type \"QueryRoot\". (1:21)",
            "Cannot query field \"f7\" on type \"QueryRoot\". (1:24)",
            "Cannot query field \"f8\" on type \"QueryRoot\". (1:27)",
            "Cannot query field \"f9\" on type \"QueryRoot\". (1:30)",
            "Cannot query field \"f10\" on type \"QueryRoot\". (1:33)",
            "Cannot query field \"f11\" on type \"QueryRoot\". (1:37)",
            "Cannot query field \"f12\" on type \"QueryRoot\". (1:41)",
            "Cannot query field \"f13\" on type \"QueryRoot\". (1:45)",
            "Cannot query field \"f14\" on type \"QueryRoot\". (1:49)",
            "Cannot query field \"f15\" on type \"QueryRoot\". (1:53)",
            "Cannot query field \"f16\" on type \"QueryRoot\". (1:57)",
            "Cannot query field \"f17\" on type \"QueryRoot\". (1:61)",
            "Cannot query field \"f18\" on type \"QueryRoot\". (1:65)",
            "Cannot query field \"f19\" on type \"QueryRoot\". (1:69)",
            "Cannot query field \"f20\" on type \"QueryRoot\". (1:73)",
            "Cannot query field \"f21\" on type \"QueryRoot\". (1:77)",
            "Cannot query field \"f22\" on type \"QueryRoot\". (1:81)",
            "Cannot query field \"f23\" on type \"QueryRoot\". (1:85)",
            "Cannot query field \"f24\" on type \"QueryRoot\". (1:89)",
            "Cannot query field \"f25\" on type \"QueryRoot\". (1:93)",
            "Cannot query field \"f26\" on type \"QueryRoot\". (1:97)",
            "Cannot query field \"f27\" on type \"QueryRoot\". (1:101)",
            "Cannot query field \"f28\" on type \"QueryRoot\". (1:105)",
            "Cannot query field \"f29\" on type \"QueryRoot\". (1:109)",
            "Cannot query field \"f30\" on type \"QueryRoot\". (1:113)",
            "Cannot query field \"f31\" on type \"QueryRoot\". (1:117)",
            "Cannot query field \"f32\" on type \"QueryRoot\". (1:121)",
            "Cannot query field \"f33\" on type \"QueryRoot\". (1:125)",
            "Cannot query field \"f34\" on type \"QueryRoot\". (1:129)",
            "Cannot query field \"f35\" on type \"QueryRoot\". (1:133)",
            "Cannot query field \"f36\" on type \"QueryRoot\". (1:137)",
            "Cannot query field \"f37\" on type \"QueryRoot\". (1:141)",
            "Cannot query field \"f38\" on type \"QueryRoot\". (1:145)",
            "Cannot query field \"f39\" on type \"QueryRoot\". (1:149)",
            "Cannot query field \"f40\" on type \"QueryRoot\". (1:153)",
            "Cannot query field \"f41\" on type \"QueryRoot\". (1:157)",
            "Cannot query field \"f42\" on type \"QueryRoot\". (1:161)",
            "Cannot query field \"f43\" on type \"QueryRoot\". (1:165)",
            "Cannot query field \"f44\" on type \"QueryRoot\". (1:169)",
            "Cannot query field \"f45\" on type \"QueryRoot\". (1:173)",
            "Cannot query field \"f46\" on type \"QueryRoot\". (1:177)",
            "Cannot query field \"f47\" on type \"QueryRoot\". (1:181)",
            "Cannot query field \"f48\" on type \"QueryRoot\". (1:185)",
            "Cannot query field \"f49\" on type \"QueryRoot\". (1:189)",
            "Cannot query field \"f50\" on type \"QueryRoot\". (1:193)",
            "Cannot query field \"f51\" on type \"QueryRoot\". (1:197)",
            "Cannot query field \"f52\" on type \"QueryRoot\". (1:201)",
            "Cannot query field \"f53\" on type \"QueryRoot\". (1:205)",
            "Cannot query field \"f54\" on type \"QueryRoot\". (1:209)",
            "Cannot query field \"f55\" on type \"QueryRoot\". (1:213)",
            "Cannot query field \"f56\" on type \"QueryRoot\". (1:217)",
            "Cannot query field \"f57\" on type \"QueryRoot\". (1:221)",
            "Cannot query field \"f58\" on type \"QueryRoot\". (1:225)",
            "Cannot query field \"f59\" on type \"QueryRoot\". (1:229)",
            "Cannot query field \"f60\" on type \"QueryRoot\". (1:233)",
            "Cannot query field \"f61\" on type \"QueryRoot\". (1:237)",
            "Cannot query field \"f62\" on type \"QueryRoot\". (1:241)",
            "Cannot query field \"f63\" on type \"QueryRoot\". (1:245)",
            "Cannot query field \"f64\" on type \"QueryRoot\". (1:249)",
            "Cannot query field \"f65\" on type \"QueryRoot\". (1:253)",
            "Cannot query field \"f66\" on type \"QueryRoot\". (1:257)",
            "Cannot query field \"f67\" on type \"QueryRoot\". (1:261)",
            "Cannot query field \"f68\" on type \"QueryRoot\". (1:265)",
            "Cannot query field \"f69\" on type \"QueryRoot\". (1:269)",
            "Cannot query field \"f70\" on type \"QueryRoot\". (1:273)",
            "Cannot query field \"f71\" on type \"QueryRoot\". (1:277)",
            "Cannot query field \"f72\" on type \"QueryRoot\". (1:281)",
            "Cannot query field \"f73\" on type \"QueryRoot\". (1:285)",
            "Cannot query field \"f74\" on type \"QueryRoot\". (1:289)",
            "Cannot query field \"f75\" on type \"QueryRoot\". (1:293)",
            "Cannot query field \"f76\" on type \"QueryRoot\". (1:297)",
            "Cannot query field \"f77\" on type \"QueryRoot\". (1:301)",
            "Cannot query field \"f78\" on type \"QueryRoot\". (1:305)",
            "Cannot query field \"f79\" on type \"QueryRoot\". (1:309)",
            "Cannot query field \"f80\" on type \"QueryRoot\". (1:313)",
            "Cannot query field \"f81\" on type \"QueryRoot\". (1:317)",
            "Cannot query field \"f82\" on type \"QueryRoot\". (1:321)",
            "Cannot query field \"f83\" on type \"QueryRoot\". (1:325)",
            "Cannot query field \"f84\" on type \"QueryRoot\". (1:329)",
            "Cannot query field \"f85\" on type \"QueryRoot\". (1:333)",
            "Cannot query field \"f86\" on type \"QueryRoot\". (1:337)",
            "Cannot query field \"f87\" on type \"QueryRoot\". (1:341)",
            "Cannot query field \"f88\" on type \"QueryRoot\". (1:345)",
            "Cannot query field \"f89\" on type \"QueryRoot\". (1:349)",
            "Cannot query field \"f90\" on type \"QueryRoot\". (1:353)",
            "Cannot query field \"f91\" on type \"QueryRoot\". (1:357)",
            "Cannot query field \"f92\" on type \"QueryRoot\". (1:361)",
            "Cannot query field \"f93\" on type \"QueryRoot\". (1:365)",
            "Cannot query field \"f94\" on type \"QueryRoot\". (1:369)",
            "Cannot query field \"f95\" on type \"QueryRoot\". (1:373)",
            "Cannot query field \"f96\" on type \"QueryRoot\". (1:377)",
            "Cannot query field \"f97\" on type \"QueryRoot\". (1:381)",
            "Cannot query field \"f98\" on type \"QueryRoot\". (1:385)",
            "Cannot query field \"f99\" on type \"QueryRoot\". (1:389)",
            "Too many validation errors, error limit reached. Validation aborted.",
        ])
    }

    @Test func errorLimitIsConfigurable() throws {
        let source = Source(Self.manyUnknownFields)
        let errors = validate(schema: ValidationHarness.schema, document: try parse(source), source: source, maxErrors: 5)
        #expect(errors.map(\.description) == [
            "Cannot query field \"f0\" on type \"QueryRoot\". (1:3)",
            "Cannot query field \"f1\" on type \"QueryRoot\". (1:6)",
            "Cannot query field \"f2\" on type \"QueryRoot\". (1:9)",
            "Cannot query field \"f3\" on type \"QueryRoot\". (1:12)",
            "Cannot query field \"f4\" on type \"QueryRoot\". (1:15)",
            "Too many validation errors, error limit reached. Validation aborted.",
        ])
    }

    @Test func introspectionQueryIsValid() throws {
        let source = Source(standardIntrospectionQuery)
        #expect(validate(schema: ValidationHarness.schema, document: try parse(source), source: source).isEmpty)
    }
}

/// graphql-core's `get_introspection_query(descriptions=True, specified_by_url=True,
/// directive_is_repeatable=True, schema_description=True, input_value_deprecation=True)`.
let standardIntrospectionQuery = """

            query IntrospectionQuery {
              __schema {
                description
                queryType { name }
                mutationType { name }
                subscriptionType { name }
                types {
                  ...FullType
                }
                directives {
                  name
                  description
                  isRepeatable
                  locations
                  args(includeDeprecated: true) {
                    ...InputValue
                  }
                }
              }
            }

            fragment FullType on __Type {
              kind
              name
              description
              specifiedByURL

              fields(includeDeprecated: true) {
                name
                description
                args(includeDeprecated: true) {
                  ...InputValue
                }
                type {
                  ...TypeRef
                }
                isDeprecated
                deprecationReason
              }
              inputFields(includeDeprecated: true) {
                ...InputValue
              }
              interfaces {
                ...TypeRef
              }
              enumValues(includeDeprecated: true) {
                name
                description
                isDeprecated
                deprecationReason
              }
              possibleTypes {
                ...TypeRef
              }
            }

            fragment InputValue on __InputValue {
              name
              description
              type { ...TypeRef }
              defaultValue
              isDeprecated
              deprecationReason
            }

            fragment TypeRef on __Type {
              kind
              name
              ofType {
                kind
                name
                ofType {
                  kind
                  name
                  ofType {
                    kind
                    name
                    ofType {
                      kind
                      name
                      ofType {
                        kind
                        name
                        ofType {
                          kind
                          name
                          ofType {
                            kind
                            name
                            ofType {
                              kind
                              name
                              ofType {
                                kind
                                name
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }

            """
