/// The specified definitions every schema has (spec Appendix D), parsed like user
/// SDL: the built-in directives and the introspection types (spec §4.5). The five
/// built-in scalars come from `BuiltInScalars`, which carry their coercion rules.
enum Prelude {
    static let sdl = #"""
    "Directs the executor to include this field or fragment only when the `if` argument is true."
    directive @include("Included when true." if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT

    "Directs the executor to skip this field or fragment when the `if` argument is true."
    directive @skip("Skipped when true." if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT

    "Marks an element of a GraphQL schema as no longer supported."
    directive @deprecated(
      "Explains why this element was deprecated, usually also including a suggestion for how to access supported similar data. Formatted using the Markdown syntax, as specified by [CommonMark](https://commonmark.org/)."
      reason: String = "No longer supported"
    ) on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE

    "Exposes a URL that specifies the behavior of this scalar."
    directive @specifiedBy("The URL that specifies the behavior of this scalar." url: String!) on SCALAR

    "Indicates exactly one field must be supplied and this field must not be `null`."
    directive @oneOf on INPUT_OBJECT

    "A GraphQL Schema defines the capabilities of a GraphQL server: its types, its directives, and the root types of its query, mutation and subscription operations."
    type __Schema {
      description: String
      "A list of all types supported by this server."
      types: [__Type!]!
      "The type that query operations will be rooted at."
      queryType: __Type!
      "If this server supports mutation, the type that mutation operations will be rooted at."
      mutationType: __Type
      "If this server supports subscription, the type that subscription operations will be rooted at."
      subscriptionType: __Type
      "A list of all directives supported by this server."
      directives: [__Directive!]!
    }

    "The fundamental unit of any GraphQL Schema is the type. Depending on its kind, a type has fields, interfaces, possible types, enum values, input fields, or wraps another type (`ofType`)."
    type __Type {
      kind: __TypeKind!
      name: String
      description: String
      specifiedByURL: String
      fields(includeDeprecated: Boolean = false): [__Field!]
      interfaces: [__Type!]
      possibleTypes: [__Type!]
      enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
      inputFields(includeDeprecated: Boolean = false): [__InputValue!]
      ofType: __Type
      isOneOf: Boolean
    }

    "An enum describing what kind of type a given `__Type` is."
    enum __TypeKind {
      "Indicates this type is a scalar."
      SCALAR
      "Indicates this type is an object. `fields` and `interfaces` are valid fields."
      OBJECT
      "Indicates this type is an interface. `fields`, `interfaces`, and `possibleTypes` are valid fields."
      INTERFACE
      "Indicates this type is a union. `possibleTypes` is a valid field."
      UNION
      "Indicates this type is an enum. `enumValues` is a valid field."
      ENUM
      "Indicates this type is an input object. `inputFields` is a valid field."
      INPUT_OBJECT
      "Indicates this type is a list. `ofType` is a valid field."
      LIST
      "Indicates this type is a non-null. `ofType` is a valid field."
      NON_NULL
    }

    "Object and Interface types are described by a list of fields, each of which has a name, potentially a list of arguments, and a return type."
    type __Field {
      name: String!
      description: String
      args(includeDeprecated: Boolean = false): [__InputValue!]!
      type: __Type!
      isDeprecated: Boolean!
      deprecationReason: String
    }

    "Arguments provided to fields or directives and the input fields of an input object are represented as input values which describe their type and optionally a default value."
    type __InputValue {
      name: String!
      description: String
      type: __Type!
      "A GraphQL-formatted string representing the default value for this input value."
      defaultValue: String
      isDeprecated: Boolean!
      deprecationReason: String
    }

    "One possible value for a given enum. Enum values are unique values, not a placeholder for a string or numeric value."
    type __EnumValue {
      name: String!
      description: String
      isDeprecated: Boolean!
      deprecationReason: String
    }

    "A directive provides a way to describe alternate runtime execution and type validation behavior in a GraphQL document."
    type __Directive {
      name: String!
      description: String
      isRepeatable: Boolean!
      locations: [__DirectiveLocation!]!
      args(includeDeprecated: Boolean = false): [__InputValue!]!
    }

    "A directive location describes where a directive may be used in a GraphQL document."
    enum __DirectiveLocation {
      "Location adjacent to a query operation."
      QUERY
      "Location adjacent to a mutation operation."
      MUTATION
      "Location adjacent to a subscription operation."
      SUBSCRIPTION
      "Location adjacent to a field."
      FIELD
      "Location adjacent to a fragment definition."
      FRAGMENT_DEFINITION
      "Location adjacent to a fragment spread."
      FRAGMENT_SPREAD
      "Location adjacent to an inline fragment."
      INLINE_FRAGMENT
      "Location adjacent to a variable definition."
      VARIABLE_DEFINITION
      "Location adjacent to a schema definition."
      SCHEMA
      "Location adjacent to a scalar definition."
      SCALAR
      "Location adjacent to an object type definition."
      OBJECT
      "Location adjacent to a field definition."
      FIELD_DEFINITION
      "Location adjacent to an argument definition."
      ARGUMENT_DEFINITION
      "Location adjacent to an interface definition."
      INTERFACE
      "Location adjacent to a union definition."
      UNION
      "Location adjacent to an enum definition."
      ENUM
      "Location adjacent to an enum value definition."
      ENUM_VALUE
      "Location adjacent to an input object type definition."
      INPUT_OBJECT
      "Location adjacent to an input object field definition."
      INPUT_FIELD_DEFINITION
    }
    """#

    /// The names of the built-in directives, in the order graphql-js lists them.
    static let directiveNames = ["include", "skip", "deprecated", "specifiedBy", "oneOf"]

    static let introspectionTypeNames: Set<String> = [
        "__Schema", "__Type", "__TypeKind", "__Field", "__InputValue", "__EnumValue", "__Directive",
        "__DirectiveLocation",
    ]
}
