import Foundation

/// SIGINT and SIGTERM, received synchronously: blocked in every thread (threads
/// started later inherit the mask) and taken with `sigwait` by the thread that
/// calls `wait()`. No signal handler runs, so nothing async-signal-unsafe can.
/// Create it before starting any thread.
struct ShutdownSignals {
    private var set = sigset_t()

    init() {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks until SIGINT or SIGTERM arrives and returns which.
    func wait() -> Int32 {
        var set = self.set
        var signal: Int32 = 0
        while sigwait(&set, &signal) != 0 {}
        return signal
    }
}
