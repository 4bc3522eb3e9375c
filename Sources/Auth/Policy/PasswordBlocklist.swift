import Signatures
import Foundation

/// A file of breached passwords' SHA-1 hashes (`GATEHOUSE_PASSWORD_BLOCKLIST`), in the format of
/// Have I Been Pwned's downloadable "Pwned Passwords" corpus: one hash a line in hex (either
/// case), optionally followed by `:COUNT`, lines ending in LF or CRLF, sorted by hash.
///
/// The file is memory-mapped, never read into memory. Opening reads one line every
/// ``indexStride`` bytes (at most ``maxIndexEntries`` lines, evenly spread) into a small index of
/// their hashes' first 8 bytes and offsets; a look-up searches that index in memory, then binary
/// searches the stretch of the file between two index lines by byte offset (a probe lands
/// mid-line and moves on to the next line's start). So a look-up reads a few pages of the file,
/// which the kernel keeps cached while they are used.
///
/// Opening checks that the file exists, is readable and non-empty, and that its lines are well
/// formed and in order: all of them in a file of up to ``fullCheckBytes``; in a larger one the
/// index lines and the last line (checking every line of the 35 GB corpus would take minutes at
/// each start). Replace the file by renaming a new one over it, never by writing into it: the
/// mapping keeps the old file until restart, while a file truncated under the mapping would
/// crash the process.
///
/// Owns the mapping; `deinit` unmaps it. Any thread may look up at any time.
public final class PasswordBlocklist: Sendable {
    /// Files up to this size have every line checked when opened.
    public static let fullCheckBytes = 16 << 20
    /// Bytes between two index lines, unless the file is large enough to need more than
    /// ``maxIndexEntries`` of them.
    public static let indexStride = 64 << 10
    /// Most index lines (16 bytes each in memory).
    public static let maxIndexEntries = 1 << 16

    /// Why the file cannot be used: a message for the operator, naming the file.
    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// A line of the index: the first 8 bytes of its hash, and where it starts.
    struct IndexEntry: Sendable {
        var prefix: UInt64
        var offset: Int
    }

    public let path: String
    /// The mapping's address (as bits: a pointer is not `Sendable`; the mapping is read-only).
    private let address: UInt
    private let size: Int
    private let index: [IndexEntry]

    /// Opens and checks the file at `path`.
    public convenience init(path: String) throws(OpenError) {
        try self.init(path: path, fullCheckBytes: Self.fullCheckBytes, indexStride: Self.indexStride)
    }

    /// Opens the file, checking every line only when it has at most `fullCheckBytes` bytes, with
    /// an index line every `indexStride` bytes.
    init(path: String, fullCheckBytes: Int, indexStride: Int) throws(OpenError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw OpenError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw OpenError("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw OpenError("\(path) is not a regular file") }
        guard status.st_size > 0 else { throw OpenError("\(path) is empty") }
        size = Int(status.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw OpenError("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        // Look-ups touch a few scattered pages: reading ahead around them would only waste reads.
        _ = madvise(mapped, size, MADV_RANDOM)
        address = UInt(bitPattern: mapped)
        do {
            index = try Lines(bytes: mapped.assumingMemoryBound(to: UInt8.self), size: size, path: path)
                .checkedIndex(fullCheckBytes: fullCheckBytes, stride: max(indexStride, size / Self.maxIndexEntries + 1))
        } catch {
            munmap(mapped, size)
            throw error
        }
    }

    deinit {
        munmap(UnsafeMutableRawPointer(bitPattern: address), size)
    }

    /// Whether the SHA-1 hash of `password`'s UTF-8 bytes is in the file.
    public func contains(password: String) -> Bool {
        contains(sha1: SHA1.digest(password))
    }

    /// Whether the 20-byte `digest` is in the file.
    public func contains(sha1 digest: [UInt8]) -> Bool {
        precondition(digest.count == SHA1.byteCount, "a SHA-1 digest has 20 bytes")
        let prefix = digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        // The key lies after the last index line below its prefix and before the first above it.
        let below = partition { $0.prefix < prefix }
        let above = partition { $0.prefix <= prefix }
        let lines = Lines(bytes: UnsafePointer(bitPattern: address)!, size: size, path: path)
        let key = Lines.upperHex(digest)
        return key.withUnsafeBufferPointer { key in
            lines.search(key, from: below > 0 ? index[below - 1].offset : 0, to: above < index.count ? index[above].offset : size)
        }
    }

    /// The number of index entries for which `isBefore` holds (they come first).
    private func partition(_ isBefore: (IndexEntry) -> Bool) -> Int {
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(index[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The mapped file's lines: search, and the checks made when it is opened.
private struct Lines {
    let bytes: UnsafePointer<UInt8>
    let size: Int
    let path: String

    /// Whether the line with hash `key` (40 upper-case hex digits) starts in `[low, high)`, where
    /// `low` is a line start and `high` a line start or the end of the file.
    func search(_ key: UnsafeBufferPointer<UInt8>, from low: Int, to high: Int) -> Bool {
        // Invariant: every line starting before `low` is below the key, every line starting at or
        // after `high` above it.
        var low = low
        var high = high
        while low < high {
            let middle = low + (high - low) / 2
            let start = middle == low ? low : lineStart(after: middle - 1, before: high)
            guard start < high else {
                high = middle  // no line starts in [middle, high)
                continue
            }
            let order = compare(lineAt: start, key)
            if order == 0 { return true }
            if order < 0 {
                low = lineStart(after: start, before: size)
            } else {
                high = start
            }
        }
        return false
    }

    /// The start of the first line after the line break at or after `offset`; `limit` when there is
    /// none before it.
    func lineStart(after offset: Int, before limit: Int) -> Int {
        guard offset < limit, let newline = memchr(bytes + offset, 0x0A, limit - offset) else { return limit }
        return bytes.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
    }

    /// The order of the hash at `start` against `key` (40 upper-case hex digits): hex letters
    /// compare case-insensitively; a short line compares as lower.
    func compare(lineAt start: Int, _ key: UnsafeBufferPointer<UInt8>) -> Int {
        for index in 0..<40 {
            guard start + index < size else { return -1 }
            var byte = bytes[start + index]
            if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") { byte -= 0x20 }
            if byte != key[index] { return byte < key[index] ? -1 : 1 }
        }
        return 0
    }

    static func upperHex(_ digest: some Collection<UInt8>) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
    }

    // MARK: Checks when opened

    /// The index (the line after every `stride` bytes, and the last line), after checking every
    /// line of a file of at most `fullCheckBytes`, or the index lines of a larger one, for form and
    /// order.
    func checkedIndex(fullCheckBytes: Int, stride: Int) throws(PasswordBlocklist.OpenError) -> [PasswordBlocklist.IndexEntry] {
        let checkAll = size <= fullCheckBytes
        if checkAll {
            var previous: Int? = nil
            var number = 0
            var start = 0
            while start < size {
                number += 1
                try checkLine(at: start, after: previous, "line \(number)")
                previous = start
                start = lineStart(after: start, before: size)
            }
        }
        var index: [PasswordBlocklist.IndexEntry] = []
        index.reserveCapacity(size / stride + 2)
        for probe in Swift.stride(from: 0, to: size, by: stride).map({ $0 }) + [size - 1] {
            // The line after the probe's (the first line for the probe at 0); the last line for the last probe.
            var start = probe == 0 ? 0 : lineStart(after: probe, before: size)
            if probe == size - 1 || start == size { start = lastLineStart() }
            if let previous = index.last?.offset, start <= previous { continue }
            if !checkAll { try checkLine(at: start, after: index.last?.offset, "the line at byte \(start)") }
            index.append(.init(prefix: prefix(at: start), offset: start))
        }
        return index
    }

    /// The first 8 bytes of the (checked) hash at `start`.
    private func prefix(at start: Int) -> UInt64 {
        (0..<16).reduce(0) { value, offset in
            let byte = bytes[start + offset]
            let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
            return value << 4 | UInt64(digit)
        }
    }

    /// The start of the file's last line (which may lack its line break).
    private func lastLineStart() -> Int {
        var index = size - 1
        if bytes[index] == 0x0A { index -= 1 }
        while index >= 0 && bytes[index] != 0x0A { index -= 1 }
        return index + 1
    }

    /// Checks the line at `start`: `HASH`, then `:COUNT` or nothing, then CRLF, LF or the end of
    /// the file; and that its hash is not below the one of the line at `previous`.
    private func checkLine(at start: Int, after previous: Int?, _ name: @autoclosure () -> String) throws(PasswordBlocklist.OpenError) {
        var index = start
        func isHex(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }
        while index < size && index - start < 40 && isHex(bytes[index]) { index += 1 }
        var wellFormed = index - start == 40
        if wellFormed && index < size && bytes[index] == UInt8(ascii: ":") {
            index += 1
            let digits = index
            while index < size && (0x30...0x39).contains(bytes[index]) { index += 1 }
            wellFormed = index > digits
        }
        if wellFormed && index < size && bytes[index] == 0x0D { index += 1 }
        wellFormed = wellFormed && (index == size || bytes[index] == 0x0A)
        guard wellFormed else {
            throw .init("\(name()) of \(path) is not a SHA-1 hash in hex (40 digits, then optionally :COUNT)")
        }
        if let previous {
            let folded = (0..<40).map { offset in
                let byte = bytes[start + offset]
                return byte >= UInt8(ascii: "a") ? byte - 0x20 : byte
            }
            let order = folded.withUnsafeBufferPointer { compare(lineAt: previous, $0) }
            guard order <= 0 else {
                throw .init("\(path) is not sorted by hash: \(name()) is out of order (sort the file, as the downloaded corpus is)")
            }
        }
    }
}
