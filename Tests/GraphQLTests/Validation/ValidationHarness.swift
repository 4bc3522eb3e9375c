@testable import GraphQL
import Testing

/// The schema the validation tests run against, modelled on graphql-js's validation
/// test harness: pets (Being/Pet/Canine/Dog/Cat/CatOrDog), Human and Alien, every
/// built-in scalar and input kind in ComplicatedArgs, a `@oneOf` input, and custom
/// directives for every executable location (one repeatable, one with arguments).
enum ValidationHarness {
    static let sdl = """
        interface Mammal {
          mother: Mammal
          father: Mammal
        }

        interface Pet {
          name(surname: Boolean): String
        }

        interface Canine implements Mammal {
          name(surname: Boolean): String
          mother: Canine
          father: Canine
        }

        enum DogCommand {
          SIT
          HEEL
          DOWN
        }

        type Dog implements Pet & Mammal & Canine {
          name(surname: Boolean): String
          nickname: String
          barkVolume: Int
          barks: Boolean
          doesKnowCommand(dogCommand: DogCommand): Boolean
          isHouseTrained(atOtherHomes: Boolean = true): Boolean
          isAtLocation(x: Int, y: Int): Boolean
          mother: Dog
          father: Dog
        }

        type Cat implements Pet {
          name(surname: Boolean): String
          nickname: String
          meows: Boolean
          meowsVolume: Int
          furColor: FurColor
        }

        union CatOrDog = Cat | Dog

        interface Being {
          name(surname: Boolean): String
        }

        interface Intelligent {
          iq: Int
        }

        type Human implements Being & Intelligent {
          name(surname: Boolean): String
          iq: Int
          pets: [Pet]
          relatives: [Human]!
        }

        type Alien implements Being & Intelligent {
          name(surname: Boolean): String
          iq: Int
          numEyes: Int
        }

        union DogOrHuman = Dog | Human

        union HumanOrAlien = Human | Alien

        enum FurColor {
          BROWN
          BLACK
          TAN
          SPOTTED
          NO_FUR
          UNKNOWN
        }

        input ComplexInput {
          requiredField: Boolean!
          nonNullField: Boolean! = false
          intField: Int
          stringField: String
          booleanField: Boolean
          stringListField: [String]
        }

        input OneOfInput @oneOf {
          stringField: String
          intField: Int
        }

        scalar Custom

        type ComplicatedArgs {
          intArgField(intArg: Int): String
          nonNullIntArgField(nonNullIntArg: Int!): String
          stringArgField(stringArg: String): String
          booleanArgField(booleanArg: Boolean): String
          enumArgField(enumArg: FurColor): String
          floatArgField(floatArg: Float): String
          idArgField(idArg: ID): String
          customArgField(customArg: Custom): String
          stringListArgField(stringListArg: [String]): String
          stringListNonNullArgField(stringListNonNullArg: [String!]): String
          complexArgField(complexArg: ComplexInput): String
          oneOfArgField(oneOfArg: OneOfInput): String
          multipleReqs(req1: Int!, req2: Int!): String
          nonNullFieldWithDefault(arg: Int! = 0): String
          multipleOpts(opt1: Int = 0, opt2: Int = 0): String
          multipleOptAndReq(req1: Int!, req2: Int!, opt1: Int = 0, opt2: Int = 0): String
        }

        type QueryRoot {
          human(id: ID): Human
          alien: Alien
          dog: Dog
          cat: Cat
          pet: Pet
          catOrDog: CatOrDog
          dogOrHuman: DogOrHuman
          humanOrAlien: HumanOrAlien
          complicatedArgs: ComplicatedArgs
        }

        type MutationRoot {
          renameDog(name: String!): Dog
        }

        type Message {
          body: String
          sender: String
        }

        type SubscriptionRoot {
          importantEmails: [String]
          notImportantEmails: [String]
          moreImportantEmails: [String]
          newMessage: Message
        }

        schema {
          query: QueryRoot
          mutation: MutationRoot
          subscription: SubscriptionRoot
        }

        directive @onQuery on QUERY
        directive @onMutation on MUTATION
        directive @onSubscription on SUBSCRIPTION
        directive @onField on FIELD
        directive @onFragmentDefinition on FRAGMENT_DEFINITION
        directive @onFragmentSpread on FRAGMENT_SPREAD
        directive @onInlineFragment on INLINE_FRAGMENT
        directive @onVariableDefinition on VARIABLE_DEFINITION
        directive @directiveA on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
        directive @directiveB on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
        directive @repeatable repeatable on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT | QUERY
        directive @withArgs(req: Int!, opt: String = "none", list: [Int!]) on FIELD | QUERY
        """

    static let schema: GraphQLSchema = {
        do {
            return try GraphQLSchema.build(sdl: sdl, sourceName: "harness.graphql")
        } catch {
            fatalError("The validation harness schema is invalid: \(error)")
        }
    }()
}

/// One document and the errors validation must report for it, each written as
/// `message (line:column, ...)`; no errors means the document is valid.
struct ValidationCase: Sendable, CustomTestStringConvertible {
    let document: String
    let errors: [String]

    init(_ document: String, _ errors: [String]) {
        self.document = document
        self.errors = errors
    }

    var testDescription: String { document.count > 80 ? String(document.prefix(77)) + "..." : document }
}

/// Parses the case's document and checks that `validate` with the given rules (by
/// default all of them) reports exactly its errors, in order.
func expectValidation<Rules: ValidationRules>(
    _ testCase: ValidationCase, rules: Rules.Type = SpecifiedRules.self,
    schema: GraphQLSchema = ValidationHarness.schema, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let source = Source(testCase.document)
    let document: Document
    do {
        document = try parse(source)
    } catch {
        Issue.record("The test document does not parse: \(error)", sourceLocation: sourceLocation)
        return
    }
    let errors = validate(schema: schema, document: document, source: source, rules: rules)
    #expect(errors.map(\.description) == testCase.errors, sourceLocation: sourceLocation)
}

/// `expectValidation` with `rule` alone: the production dispatcher with a list of one rule.
func expectValidation<Rule: ValidationRule>(
    _ testCase: ValidationCase, rule: Rule.Type, schema: GraphQLSchema = ValidationHarness.schema,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    expectValidation(testCase, rules: NoRules.Then<Rule>.self, schema: schema, sourceLocation: sourceLocation)
}
