import Glibc

/// A joinable POSIX thread running a Swift closure (internal; the tests use it too).
///
/// Plain threads, not Swift concurrency: the pool's jobs block for about 100 ms each.
struct PThread: Sendable {
    private let handle: pthread_t

    /// Starts a thread running `body`.
    static func spawn(_ body: @escaping @Sendable () -> Void) -> PThread {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, pthreadEntry, box)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            fatalError("pthread_create failed (\(result))")
        }
        return PThread(handle: handle)
    }

    /// Waits for the thread to finish. Call exactly once.
    func join() {
        let result = pthread_join(handle, nil)
        precondition(result == 0, "pthread_join failed (\(result))")
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// The C entry point: a plain non-isolated function; the context is released exactly once here.
private func pthreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
    body.body()
    return nil
}
