/// Why a `PasswordHashingPool` did not complete a job.
public enum HashingPoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every worker is busy and the queue is full: the job was refused at once, without waiting.
    /// Answer the client "try again later" rather than piling up memory.
    case busy
    /// The pool has been shut down and takes no new jobs.
    case shutDown
    /// The hash itself failed (for instance out of memory).
    case hashingFailed(SodiumError)

    /// A log-safe description (never a password or hash).
    public var description: String {
        switch self {
        case .busy: return "Password hashing pool is busy: all workers are working and the queue is full."
        case .shutDown: return "Password hashing pool is shut down."
        case .hashingFailed(let error): return "Password hashing failed: \(error)"
        }
    }
}
