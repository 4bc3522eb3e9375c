// GraphQL engine.
