import Foundation
import GraphQL
import GraphQLHTTP
import HTTPServer
import Synchronization
import Testing

/// The responder asks for a request's context once, and executes it once, where and when the
/// context is ready: now, later (on the thread that delivers it), or on a thread that may block.
@Suite struct ContextReadinessTests {
    /// The resolvers' context: the value the hook delivered.
    struct Context: Sendable {
        let value: Int
    }

    /// How many times the hook and `Query.answer` ran.
    final class Counter: Sendable {
        let contexts = Atomic<Int>(0)
        let executions = Atomic<Int>(0)
    }

    /// A responder whose hook answers an operation that may execute `answer` (pure once
    /// settled) with `readiness`, pure ones now, and blocking ones (the mutation) on a blocking thread.
    static func responder(
        counter: Counter, readiness: @escaping @Sendable () -> ContextReadiness<Context>
    ) -> GraphQLHTTPResponder<Context> {
        let schema = try! GraphQLSchema.build(sdl: "type Query { answer: Int plain: String } type Mutation { bump: Int }")
        var resolvers = Resolvers<Context>()
        resolvers.field("Query.answer", runs: .pureOnceSettled) { _, _, context, _ in
            counter.executions.add(1, ordering: .relaxed)
            return .int(context.value)
        }
        resolvers.field("Query.plain", runs: .pure) { _, _, _, _ in .string("plain") }
        resolvers.field("Mutation.bump") { _, _, context, _ in .int(context.value) }
        let service = GraphQLService(executable: try! ExecutableSchema(schema: schema, resolvers: resolvers))
        return GraphQLHTTPResponder(service: service) { _, prepared, operation in
            counter.contexts.add(1, ordering: .relaxed)
            guard let operation else { return .now(Context(value: 0)) }
            switch prepared.placement(of: operation) {
            case .blocking: return .blocking(Context(value: 1))
            case .pure: return .now(Context(value: 0))
            case .pureOnceSettled: return readiness()
            }
        }
    }

    static func post(_ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/graphql", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    static func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func aContextReadyNowExecutesAtOnce() throws {
        let counter = Counter()
        let responder = Self.responder(counter: counter) { .now(Context(value: 5)) }
        guard case .now(let response) = responder.answer(Self.post(#"{"query":"{ a: answer plain }"}"#)).answer else {
            Issue.record("expected an answer now")
            return
        }
        #expect(Self.body(response) == #"{"data":{"a":5,"plain":"plain"}}"#)
        #expect(counter.contexts.load(ordering: .relaxed) == 1)
        #expect(counter.executions.load(ordering: .relaxed) == 1)
    }

    /// The context comes from another thread: the request executes once, there, after it.
    @Test func aContextReadyLaterExecutesOnceWhenItComes() throws {
        let counter = Counter()
        let responder = Self.responder(counter: counter) {
            .later { ready in Thread { ready(Context(value: 42)) }.start() }
        }
        let answer = responder.answer(Self.post(#"{"query":"{ answer }"}"#))
        guard case .later = answer.answer else {
            Issue.record("expected a later answer")
            return
        }
        #expect(counter.executions.load(ordering: .relaxed) == 0)
        #expect(Self.body(answer.answer.responseWaitingHere()) == #"{"data":{"answer":42}}"#)
        #expect(counter.contexts.load(ordering: .relaxed) == 1)
        #expect(counter.executions.load(ordering: .relaxed) == 1)
    }

    /// A context delivered before `start` returns (a cache hit) is answered inside `start`.
    @Test func aLaterContextReadyAtOnceRepliesInsideStart() {
        let responder = Self.responder(counter: Counter()) { .later { ready in ready(Context(value: 3)) } }
        guard case .later(let start) = responder.answer(Self.post(#"{"query":"{ answer }"}"#)).answer else {
            Issue.record("expected a later answer")
            return
        }
        let reply = Mutex<HTTPResponse?>(nil)
        start { response in reply.withLock { $0 = response } }
        #expect(reply.withLock { $0 }.map(Self.body) == #"{"data":{"answer":3}}"#)
    }

    @Test func mutationsExecuteOnABlockingThreadOnly() {
        let counter = Counter()
        let responder = Self.responder(counter: counter) { .now(Context(value: 0)) }
        guard case .blocking(let work) = responder.answer(Self.post(#"{"query":"mutation { bump }"}"#)).answer else {
            Issue.record("expected a blocking answer")
            return
        }
        #expect(Self.body(work()) == #"{"data":{"bump":1}}"#)
    }

    /// Request errors are answered before the hook is asked.
    @Test func requestErrorsNeedNoContext() {
        let counter = Counter()
        let responder = Self.responder(counter: counter) { .now(Context(value: 0)) }
        guard case .now(let response) = responder.answer(Self.post(#"{"query":"{ nope }"}"#)).answer else {
            Issue.record("expected an answer now")
            return
        }
        #expect(Self.body(response).contains(#"Cannot query field \"nope\" on type \"Query\"."#))
        #expect(counter.contexts.load(ordering: .relaxed) == 0)
    }
}
