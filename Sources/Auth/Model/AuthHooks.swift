import JSON

/// The hooks that may refuse a sign-up or a log-in (`GATEHOUSE_HOOKS`), as the domain calls them:
/// synchronously, after the input was validated (sign-up) or every credential and factor was
/// verified (log-in), and before anything is written. The domain calls them holding no database
/// connection and no hashing worker; how a hook is reached (HTTP, its signature, timeout and
/// `onError`) is the caller's, which answers with a ``Verdict``.
public struct AuthHooks: Sendable {
    /// Where a hook is called; the raw value is the `type` of its request.
    public enum Point: String, Sendable, CaseIterable {
        case beforeSignUp = "before.sign_up"
        case beforeLogIn = "before.log_in"
    }

    /// What a hook decided.
    public enum Verdict: Sendable, Equatable {
        /// Go on.
        case allow
        /// Fail the operation with 141 and this message (cleaned and cut by the caller).
        case refuse(String)
    }

    /// The points with a hook.
    public let points: Set<Point>
    /// Calls the hook at a point with its `data`; nil when no hook is configured there.
    public let call: @Sendable (Point, JSONObject) -> Verdict?

    public init(points: Set<Point>, call: @escaping @Sendable (Point, JSONObject) -> Verdict?) {
        self.points = points
        self.call = call
    }

    /// Throws 141 with the hook's message when the hook at `point` refuses.
    func check(_ point: Point, _ data: JSONObject) throws(AuthError) {
        if case .refuse(let message)? = call(point, data) { throw .hookRefused(message: message) }
    }
}
