/// Where ``JSONWriter/writeString(_:to:)`` appends bytes: a `[UInt8]`, or a caller's own
/// buffer (the server's log line writes through a pointer).
public protocol JSONOutput {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes`.
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension JSONOutput {
    /// Appends the UTF-8 of `text`.
    @inlinable
    mutating func append(contentsOf text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension [UInt8]: JSONOutput {}
