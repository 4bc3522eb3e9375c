/// A ``JSONOutput`` that collects bytes in memory the caller lends it (a stack allocation) and
/// moves them to a `[UInt8]` when that memory is full and at the end (``flush()``).
///
/// Appending to an array checks that its storage is uniquely referenced and large enough, and
/// appending a run of bytes is a call; here an append is a store, or a copy, and a count. The
/// writer appends a few bytes at a time (a quote, a key, a colon), so this is most of its work.
struct StagedBytes: JSONOutput {
    /// Where the bytes are moved to.
    var output: [UInt8]
    private let staging: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var count = 0

    /// Stages in `staging` (which must outlive this value) on the way to `output`.
    init(_ staging: UnsafeMutableBufferPointer<UInt8>, output: [UInt8]) {
        self.output = output
        self.staging = staging.baseAddress!
        self.capacity = staging.count
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { flush() }
        staging[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        if bytes.count > capacity - count {
            flush()
            // More than the staging memory holds: straight to the array.
            if bytes.count > capacity {
                output.append(contentsOf: bytes)
                return
            }
        }
        (staging + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    /// Appends `string` as a quoted, escaped JSON string (``JSONWriter/writeString(_:to:)``):
    /// text that needs no escaping, nearly all, is checked and copied in one pass.
    mutating func appendJSONString(_ string: String) {
        let staged: Bool? = string.utf8.withContiguousStorageIfAvailable { appendQuotedIfClean($0) }
        if staged != true { JSONWriter.writeString(string, to: &self) }
    }

    /// Appends `bytes` between quotes when none of them needs escaping in a JSON string
    /// (``JSONWriter/mayNeedEscaping(_:)-(UInt64)``), eight bytes at a time: each word is
    /// checked and stored as it is loaded. Returns false, having appended nothing, otherwise (or
    /// when they are too long to stage at once).
    mutating func appendQuotedIfClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = bytes.count
        // The quotes, and room for a whole word stored from the last byte on.
        if length + 10 > capacity - count {
            flush()
            if length + 10 > capacity { return false }
        }
        let start = staging + count
        start[0] = UInt8(ascii: "\"")
        if let source = bytes.baseAddress {
            let destination = UnsafeMutableRawPointer(start + 1)
            func word(at index: Int) -> UInt64 { UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self) }
            if length >= 8 {
                var index = 0
                while index + 8 <= length {
                    let word = word(at: index)
                    if JSONWriter.mayNeedEscaping(word) { return false }
                    destination.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
                    index += 8
                }
                // Fewer than eight left: the last eight bytes, read again in part, hold them all.
                if index < length {
                    let word = word(at: length - 8)
                    if JSONWriter.mayNeedEscaping(word) { return false }
                    destination.storeBytes(of: word, toByteOffset: length - 8, as: UInt64.self)
                }
            } else {
                // One word, padded with spaces (which need no escaping); the bytes stored past
                // the text's end are written over by what comes next.
                var padded: UInt64 = 0x2020_2020_2020_2020
                for index in 0..<length { padded ^= UInt64(source[index] ^ 0x20) << (8 * index) }
                if JSONWriter.mayNeedEscaping(padded) { return false }
                destination.storeBytes(of: padded, as: UInt64.self)
            }
        }
        start[length + 1] = UInt8(ascii: "\"")
        count += length + 2
        return true
    }

    /// Moves the staged bytes to `output`.
    mutating func flush() {
        output.append(contentsOf: UnsafeBufferPointer(start: staging, count: count))
        count = 0
    }

    /// Runs `body` with bytes staged on the stack on their way to `output`, all in `output`
    /// when it returns.
    static func staging(to output: inout [UInt8], _ body: (inout StagedBytes) -> Void) {
        // 1,024 bytes: the most that `withUnsafeTemporaryAllocation` takes from the stack
        // without asking how much stack the thread has left.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { memory in
            var staged = StagedBytes(memory, output: [])
            swap(&staged.output, &output)
            body(&staged)
            staged.flush()
            swap(&staged.output, &output)
        }
    }
}
