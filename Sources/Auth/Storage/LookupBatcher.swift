import Dispatch
import Threading

/// Coalesces concurrent lookups by key into batches, so that N requests asking at once
/// cost one statement for N keys instead of N statements (the viewer's session lookup: one
/// statement and round trip for the digests of all the requests waiting, see `UserStore.sessions`;
/// provider log-ins: one statement and commit finding the users and inserting the sessions of all
/// the log-ins waiting, see `UserStore.logIn(_:withholdingTOTP:withholdingUnverified:)`; the
/// token endpoint's refresh grants: one statement rotating the tokens of all the refreshes
/// waiting, see `OAuthStore.rotate(_:useResolution:)`).
///
/// Batches run on the batcher's own threads, at most `maxConcurrentBatches` at a time; each
/// takes up to `maxBatchSize` waiting keys in arrival order, so an idle server runs a
/// lookup at once, alone, and a busy one answers many per statement. While a batch runs,
/// another starts only once `concurrentBatchThreshold` lookups wait: below that they are
/// cheaper as part of the next batch than as a batch of their own (a thread wake-up, a round
/// trip and a statement each), and the running batch is about to finish. Callers either block
/// (`lookup(_:)`) or get a completion on a batch thread (`lookup(_:completion:)`, for callers
/// that must not wait). Completions run one after another on the batch's thread, which may
/// block. When a batch fails, every lookup in it gets the error;
/// when it fails by waiting too long (`failsQueued`: the pool or a statement timed out), so do
/// the lookups queued behind it, which would otherwise wait out a second timeout.
final class LookupBatcher<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Run = @Sendable ([Key]) throws -> [Key: Value]
    typealias Completion = @Sendable (Result<Value?, any Error>) -> Void

    /// A blocking lookup's result: written once before its semaphore is signalled, read after the wait.
    private final class Slot: @unchecked Sendable {
        var result: Result<Value?, any Error>?
    }

    private struct Waiting {
        let key: Key
        let completion: Completion
    }

    private struct State {
        var running = 0
        var queue = FIFO<Waiting>()
    }

    let maxBatchSize: Int
    let maxConcurrentBatches: Int
    let concurrentBatchThreshold: Int
    private let run: Run
    private let failsQueued: @Sendable (any Error) -> Bool
    private let state = Lock(State())
    private let threads: WorkerThreads

    init(
        maxBatchSize: Int, maxConcurrentBatches: Int, concurrentBatchThreshold: Int = 1,
        failsQueued: @escaping @Sendable (any Error) -> Bool = { _ in false },
        run: @escaping Run
    ) {
        precondition(maxBatchSize >= 1 && maxConcurrentBatches >= 1 && concurrentBatchThreshold >= 1)
        self.maxBatchSize = maxBatchSize
        self.maxConcurrentBatches = maxConcurrentBatches
        self.concurrentBatchThreshold = concurrentBatchThreshold
        self.failsQueued = failsQueued
        self.run = run
        self.threads = WorkerThreads(name: "gh-lookups", maxThreads: maxConcurrentBatches)
    }

    deinit {
        threads.shutDown(waiting: false)
    }

    /// The value for `key` (nil when `run` has none), from a batch with other lookups;
    /// blocks until its batch is done.
    func lookup(_ key: Key) throws -> Value? {
        let slot = Slot()
        let done = DispatchSemaphore(value: 0)
        lookup(key) { result in
            slot.result = result
            done.signal()
        }
        done.wait()
        return try slot.result!.get()
    }

    /// Batches running and lookups waiting for one: for tests, which wait for a state, not for time.
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.queue.count) } }

    /// Looks `key` up in a batch and calls `completion` with the value, on a batch thread.
    func lookup(_ key: Key, completion: @escaping Completion) {
        let start = state.withLock { state in
            state.queue.append(Waiting(key: key, completion: completion))
            guard state.running == 0
                || (state.running < maxConcurrentBatches && state.queue.count >= concurrentBatchThreshold)
            else { return false }
            state.running += 1
            return true
        }
        if start { threads.run { [self] in drain() } }
    }

    /// Runs batches until no lookup is waiting.
    private func drain() {
        while true {
            let batch: [Waiting] = state.withLock { state in
                if state.queue.isEmpty { state.running -= 1 }
                return state.queue.popFirst(upTo: maxBatchSize)
            }
            if batch.isEmpty { return }
            var keys: [Key] = []
            keys.reserveCapacity(batch.count)
            for waiting in batch { keys.append(waiting.key) }
            let outcome = Result { try run(keys) }
            var failed = batch
            if case .failure(let error) = outcome, failsQueued(error) {
                failed += state.withLock { state in state.queue.popFirst(upTo: state.queue.count) }
            }
            for waiting in failed { waiting.completion(outcome.map { $0[waiting.key] }) }
        }
    }
}
