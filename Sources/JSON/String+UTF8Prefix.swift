extension String {
    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a Unicode scalar
    /// boundary: how text a client chose is cut before it reaches a log line, an error or a
    /// metrics label. A cut by `Character`s bounds nothing, since one grapheme cluster (a letter
    /// followed by 100,000 combining marks) may be a whole request long.
    public func utf8Prefix(_ maxBytes: Int) -> String {
        precondition(maxBytes >= 0)
        guard utf8.count > maxBytes else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: maxBytes)
        // A valid string's scalars start at every byte that is not a continuation byte (10xxxxxx).
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
