/// Why libcrypto refused a key or failed. Descriptions never quote key material.
public enum SignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Key material that is malformed, not on its curve, or too weak.
    case invalidKey(String)
    /// libcrypto failed at something that should not fail (out of memory, say); names the function.
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case .invalidKey(let detail): "Invalid key: \(detail)."
        case .cryptoFailure(let function): "libcrypto failed: \(function)."
        }
    }
}
