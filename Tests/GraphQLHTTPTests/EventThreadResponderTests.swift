import GraphQL
import GraphQLHTTP
import HTTPServer
import Synchronization
import Testing

/// The responder on an HTTP event thread: answered at once, handed to a blocking thread,
/// or waiting for work that `prefetch` or `deferral` names, then executed with its value.
@Suite struct EventThreadResponderTests {
    /// The resolvers' context: what the request's earlier `.waiting` work delivered, and
    /// whether a resolver found it missing.
    final class Context: Sendable {
        let awaited: Int?
        let missing = Atomic<Bool>(false)
        init(awaited: Int?) { self.awaited = awaited }
    }

    /// How many times `Query.answer` ran.
    final class Counter: Sendable {
        let executions = Atomic<Int>(0)
    }

    static func responder(prefetching: Bool, counter: Counter) -> GraphQLHTTPResponder<Context> {
        let schema = try! GraphQLSchema.build(sdl: "type Query { answer: Int plain: String } type Mutation { bump: Int }")
        var resolvers = Resolvers<Context>()
        resolvers.field("Query.answer") { _, _, context, _ in
            counter.executions.add(1, ordering: .relaxed)
            guard let awaited = context.awaited else {
                context.missing.store(true, ordering: .relaxed)
                return .null
            }
            return .int(awaited)
        }
        resolvers.field("Query.plain") { _, _, _, _ in .string("plain") }
        resolvers.field("Mutation.bump") { _, _, _, _ in .int(1) }
        let service = GraphQLService(executable: try! ExecutableSchema(schema: schema, resolvers: resolvers))
        let prefetch: @Sendable (Context, Document, OperationDefinition) -> NonBlockingResponse? = { _, document, operation in
            guard document.mayExecute(rootField: "answer", of: operation) else { return nil }
            return .waiting { done in done(42) }
        }
        let deferral: @Sendable (Context) -> NonBlockingResponse? = { context in
            guard context.missing.load(ordering: .relaxed) else { return nil }
            return .waiting { done in done(7) }
        }
        return GraphQLHTTPResponder(
            service: service, makeContext: { _, mode in Context(awaited: mode.awaited as? Int) },
            prefetch: prefetching ? prefetch : nil, deferral: deferral)
    }

    static func post(_ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/graphql", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    /// Runs `respondWithoutBlocking` to its answer, doing each `.waiting` work in place;
    /// the HTTP response body and how many rounds of waiting it took.
    static func run(
        _ responder: GraphQLHTTPResponder<Context>, _ request: HTTPRequest, resumedWith later: HTTPRequest? = nil
    ) -> (body: String, waits: Int) {
        var awaited: (any Sendable)? = nil
        var waits = 0
        while true {
            switch responder.respondWithoutBlocking(to: awaited == nil ? request : later ?? request, awaited: awaited) {
            case .answered(let outcome):
                return (String(decoding: outcome.response.body, as: UTF8.self), waits)
            case .deferred(.waiting(let start)):
                waits += 1
                let box = Mutex<(any Sendable)?>(nil)
                start { value in box.withLock { $0 = value } }
                awaited = box.withLock { $0 }
            case .deferred(let other):
                return ("deferred: \(other)", waits)
            }
        }
    }

    @Test func prefetchedWorkLetsTheQueryExecuteOnce() {
        let counter = Counter()
        let result = Self.run(Self.responder(prefetching: true, counter: counter), Self.post(#"{"query":"{ a: answer plain }"}"#))
        #expect(result.body == #"{"data":{"a":42,"plain":"plain"}}"#)
        #expect(result.waits == 1)
        #expect(counter.executions.load(ordering: .relaxed) == 1)
    }

    @Test func withoutPrefetchTheResolverAsksAndTheQueryExecutesTwice() {
        let counter = Counter()
        let result = Self.run(Self.responder(prefetching: false, counter: counter), Self.post(#"{"query":"{ answer }"}"#))
        #expect(result.body == #"{"data":{"answer":7}}"#)
        #expect(result.waits == 1)
        #expect(counter.executions.load(ordering: .relaxed) == 2)
    }

    @Test func queriesWithoutTheFieldAreAnsweredAtOnce() {
        let result = Self.run(Self.responder(prefetching: true, counter: Counter()), Self.post(#"{"query":"{ plain }"}"#))
        #expect(result.body == #"{"data":{"plain":"plain"}}"#)
        #expect(result.waits == 0)
    }

    @Test func mutationsNeedABlockingThread() {
        let responder = Self.responder(prefetching: true, counter: Counter())
        guard case .deferred(.needsBlocking) = responder.respondWithoutBlocking(
            to: Self.post(#"{"query":"mutation { bump }"}"#), awaited: nil)
        else {
            Issue.record("expected needsBlocking")
            return
        }
    }

    /// A resumed request executes what was admitted the first time; it is not decoded again.
    @Test func aResumedRequestIsNotDecodedAgain() {
        let result = Self.run(
            Self.responder(prefetching: true, counter: Counter()), Self.post(#"{"query":"{ answer }"}"#),
            resumedWith: Self.post("not json"))
        #expect(result.body == #"{"data":{"answer":42}}"#)
    }

    @Test(arguments: [
        ("{ answer }", true),
        ("{ x: answer }", true),
        ("{ plain }", false),
        ("{ ... on Query { answer } }", true),
        ("{ ...F } fragment F on Query { plain ...G } fragment G on Query { answer }", true),
        ("{ ...F } fragment F on Query { ...F plain }", false),
        ("{ answer @skip(if: true) }", true),
        ("{ plain { answer } }", false),
        ("query A { plain } query B { answer }", false),
    ])
    func mayExecuteRootField(query: String, expected: Bool) throws {
        let document = try parse(Source(query))
        let operation = try #require(document.definitions.compactMap { if case .operation(let o) = $0 { o } else { nil } }.first)
        #expect(document.mayExecute(rootField: "answer", of: operation) == expected)
    }
}
