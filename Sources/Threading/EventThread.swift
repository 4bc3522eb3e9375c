#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads of an event loop: each serves many connections, so a call that blocks there
/// stalls every connection it serves.
///
/// The HTTP server marks its event threads; the database client asserts that it is never called
/// on one. `assert` is checked in debug builds (tests) and compiled out of release builds, so
/// the whole test suite proves on every path it runs that no database call happens on an event
/// thread, at no cost in production.
public enum EventThread {
    /// A thread-specific flag: set (non-nil) on marked threads, nil elsewhere.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread as an event thread, for the rest of its life.
    public static func markCurrent() {
        if pthread_getspecific(key) == nil { pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }
    }

    /// Whether the calling thread was marked as an event thread.
    public static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Fails (in debug builds) when called on an event thread: for calls that may block.
    @inline(__always)
    public static func assertMayBlock(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(!isCurrent, "\(what()) on an event thread, which must never block", file: file, line: line)
    }
}
