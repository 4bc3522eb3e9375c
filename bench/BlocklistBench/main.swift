// BlocklistBench [LINES] [LOOKUPS] [COLD]: the cost of one GATEHOUSE_PASSWORD_BLOCKLIST check.
// Writes a sorted file of LINES (default 10,000,000) random SHA-1 hashes in the Pwned Passwords
// format (`HASH:COUNT` and CRLF) to a temporary directory, opens it as the server does, and times
// COLD (default 200) look-ups with the file's pages dropped from the page cache before each, then
// LOOKUPS (default 200,000) warm look-ups, half of hashes in the file and half of random ones, the
// whole check of random passwords (SHA-1 included) and the built-in list's check. Prints one line
// per kind (mean and p99 in microseconds) and deletes the file.
import Auth
import Foundation
import Sodium
import TestSupport

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let lineCount = arguments.count > 0 ? arguments[0] : 10_000_000
let lookupCount = arguments.count > 1 ? arguments[1] : 200_000
let coldCount = arguments.count > 2 ? arguments[2] : 200

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Mean and p99 of `nanoseconds`, in microseconds.
func summary(_ name: String, _ nanoseconds: [UInt64]) -> String {
    let sorted = nanoseconds.sorted()
    let mean = Double(sorted.reduce(0, +)) / Double(sorted.count) / 1000
    let p99 = Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]) / 1000
    return "\(name): n=\(sorted.count) mean_us=\(String(format: "%.2f", mean)) p99_us=\(String(format: "%.2f", p99)) max_us=\(String(format: "%.2f", Double(sorted.last!) / 1000))"
}

// MARK: The file: line i's first 8 bytes are i * step plus less than step, so the lines are sorted
// and distinct without a sort; the other 12 bytes are random.

var random = SplitMix64(seed: 16)
let directory = TemporaryDirectory.make(prefix: "gh-blocklist-bench")
let path = directory + "/pwned-passwords-sha1.txt"
defer { try? FileManager.default.removeItem(atPath: directory) }
let step = UInt64.max / UInt64(lineCount)
var hits: [[UInt8]] = []
let hitEvery = max(1, lineCount / 10_000)
let started = now()
do {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    let hex = Array("0123456789ABCDEF".utf8)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(4 << 20)
    var digest = [UInt8](repeating: 0, count: 20)
    for index in 0..<lineCount {
        let prefix = UInt64(index) &* step &+ random.next() % step
        let middle = random.next()
        let tail = random.next()
        for byte in 0..<8 { digest[byte] = UInt8(truncatingIfNeeded: prefix >> (56 - 8 * UInt64(byte))) }
        for byte in 0..<8 { digest[8 + byte] = UInt8(truncatingIfNeeded: middle >> (8 * UInt64(byte))) }
        for byte in 0..<4 { digest[16 + byte] = UInt8(truncatingIfNeeded: tail >> (8 * UInt64(byte))) }
        if index % hitEvery == 0 { hits.append(digest) }
        for byte in digest {
            buffer.append(hex[Int(byte >> 4)])
            buffer.append(hex[Int(byte & 15)])
        }
        buffer.append(UInt8(ascii: ":"))
        buffer.append(contentsOf: String(tail >> 48 % 100_000 + 1).utf8)
        buffer.append(contentsOf: [0x0D, 0x0A])
        if buffer.count >= 4 << 20 || index == lineCount - 1 {
            let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            precondition(written == buffer.count, "short write")
            buffer.removeAll(keepingCapacity: true)
        }
    }
    fsync(fd)
    close(fd)
}
let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
print("file: lines=\(lineCount) bytes=\(size) written_s=\(String(format: "%.1f", Double(now() - started) / 1e9))")

/// Drops the file's pages from the page cache (and from this process's mappings of it).
func dropCachedPages() {
    // The blocklist's mapping, found in /proc/self/maps: pages mapped into a process stay cached.
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) {
        for line in maps.split(separator: "\n") where line.hasSuffix(path) {
            let range = line.split(separator: " ")[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: range[0]), Int(range[1] - range[0]), MADV_DONTNEED)
        }
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    close(fd)
}

// MARK: Opening (the start-up check), cold and warm

dropCachedPages()
var openStarted = now()
let blocklist: PasswordBlocklist
do { blocklist = try PasswordBlocklist(path: path) } catch { fatalError("\(error)") }
print("open with an empty page cache: ms=\(String(format: "%.1f", Double(now() - openStarted) / 1e6))")
openStarted = now()
do { _ = try PasswordBlocklist(path: path) } catch { fatalError("\(error)") }
print("open again: ms=\(String(format: "%.1f", Double(now() - openStarted) / 1e6))")

var cold: [UInt64] = []
var coldHits = 0
for index in 0..<coldCount {
    dropCachedPages()
    // Alternately a hash in the file and a random one.
    let digest = index % 2 == 0 ? hits[index * 7919 % hits.count] : (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
    let start = now()
    if blocklist.contains(sha1: digest) { coldHits += 1 }
    cold.append(now() - start)
}
precondition(coldHits == (coldCount + 1) / 2, "every cold hit found, no miss found")

// Warm: the whole file in the page cache (read once), as a busy server's would hold it.
do {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while read(fd, &chunk, chunk.count) > 0 {}
    close(fd)
}
for index in 0..<hits.count { _ = blocklist.contains(sha1: hits[index]) }
var hitTimes: [UInt64] = []
var missTimes: [UInt64] = []
var found = 0
for index in 0..<lookupCount {
    if index % 2 == 0 {
        let digest = hits[Int(random.next() % UInt64(hits.count))]
        let start = now()
        if blocklist.contains(sha1: digest) { found += 1 }
        hitTimes.append(now() - start)
    } else {
        let digest = (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
        let start = now()
        if blocklist.contains(sha1: digest) { found += 1 }
        missTimes.append(now() - start)
    }
}
precondition(found == hitTimes.count, "every hit found, no miss found")
var checkTimes: [UInt64] = []
for index in 0..<lookupCount / 2 {
    let password = "correct horse \(index) \(random.next())"
    let start = now()
    _ = blocklist.contains(password: password)
    checkTimes.append(now() - start)
}
let policy = PasswordPolicy()
_ = policy.isCommon("warm-up")  // builds the built-in list's set
var listTimes: [UInt64] = []
for index in 0..<lookupCount / 2 {
    let password = index % 2 == 0 ? "correct horse \(index)" : "Password"
    let start = now()
    _ = policy.isCommon(password)
    listTimes.append(now() - start)
}
print(summary("built-in list check (half listed)", listTimes))
print(summary("cold lookup (hits and misses, page cache dropped before each)", cold))
print(summary("warm lookup, hit", hitTimes))
print(summary("warm lookup, miss", missTimes))
print(summary("warm check of a password (SHA-1 and lookup)", checkTimes))
