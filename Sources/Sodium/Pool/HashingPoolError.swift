/// Why a `PasswordHashingPool` did not complete a job.
public enum HashingPoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The job would wait for a worker longer than the pool's `maxWait`: it was refused at once,
    /// without waiting. Answer the client "try again later" rather than piling up latency.
    case busy
    /// The pool has been shut down and takes no new jobs.
    case shutDown
    /// The hash itself failed (for instance out of memory).
    case hashingFailed(SodiumError)

    /// A log-safe description (never a password or hash).
    public var description: String {
        switch self {
        case .busy: return "Password hashing pool is busy: the job would wait longer than the maximum wait."
        case .shutDown: return "Password hashing pool is shut down."
        case .hashingFailed(let error): return "Password hashing failed: \(error)"
        }
    }
}
