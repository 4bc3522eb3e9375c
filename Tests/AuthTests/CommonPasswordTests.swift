import Signatures
import Foundation
import Testing
import TestSupport

@testable import Auth

/// The contract's "Common passwords": the built-in list and `GATEHOUSE_PASSWORD_BLOCKLIST`,
/// refused with 142 `Password is too common.`
@Suite struct CommonPasswordTests {
    static let message = "Password is too common."

    @Test(arguments: ["password", "iloveyou", "12345678", "PassWord", "QWERTYUIOP", "trustno1", "password123", "Password123", "qwerty123456"])
    func listedPasswordsAreRefused(_ password: String) throws {
        let h = try Harness()
        let result = h.signUp(["username": "bob", "password": .string(password)])
        #expect(onlyError(result)?.code == 142, "\(result.json)")
        #expect(onlyError(result)?.message == Self.message)
    }

    @Test func unlistedPasswordIsAccepted() throws {
        let h = try Harness()
        let result = h.signUp(["username": "bob", "password": "correct horse battery staple"])
        #expect(result.errors.isEmpty, "\(result.json)")
    }

    /// Field sizes first, then the policy's length, then the list.
    @Test func lengthChecksComeFirst() throws {
        let h = try Harness(configuration: AuthConfiguration(passwordPolicy: PasswordPolicy(minimumLength: 8, maximumBytes: 8)))
        #expect(onlyError(h.signUp(["username": "bob", "password": "123456"]))?.message
            == "Password does not meet the Password Policy requirements.")
        #expect(onlyError(h.signUp(["username": "bob", "password": "123456789"]))?.message
            == "password is too long (at most 8 bytes).")
        #expect(onlyError(h.signUp(["username": "bob", "password": "12345678"]))?.message == Self.message)
    }

    /// The embedded list is the committed file, all of it: 120,000 distinct lower-case entries.
    @Test func builtInListIsTheCommittedFile() throws {
        let file = try String(
            contentsOf: packageRoot.appendingPathComponent("Sources/Auth/Policy/CommonPasswords/common-passwords.txt"),
            encoding: .utf8)
        #expect(CommonPasswordList.text == file)
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 120_000)
        #expect(CommonPasswords.entries.count == 120_000)
        #expect(lines.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty })
        #expect(CommonPasswords.contains(String(lines.last!)))
        #expect(!CommonPasswords.contains(""))
    }

    // MARK: The blocklist file

    /// Passwords in the test files, with hashes spread over the whole range.
    static let listed = (0..<200).map { "breached-\($0)" }

    /// A sorted blocklist of `listed`'s hashes: upper- or lower-case hex, with or without counts, CRLF or LF.
    static func blocklistText(lowercase: Bool = false, counts: Bool = true, crlf: Bool = true, finalNewline: Bool = true) -> String {
        let hashes = listed.map { SHA1.hexDigest($0) }.sorted()
        let lines = hashes.enumerated().map { index, hash in
            (lowercase ? hash : hash.uppercased()) + (counts ? ":\(index * 37 + 1)" : "")
        }
        let end = crlf ? "\r\n" : "\n"
        return lines.joined(separator: end) + (finalNewline ? end : "")
    }

    static func write(_ text: String) throws -> String {
        let path = TemporaryDirectory.make(prefix: "gh-blocklist") + "/pwned.txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Opens with the index of a large file (an index line every `stride` bytes), or of a small one.
    static func open(_ path: String, stride: Int) throws -> PasswordBlocklist {
        try PasswordBlocklist(path: path, fullCheckBytes: PasswordBlocklist.fullCheckBytes, indexStride: stride)
    }

    @Test(arguments: [
        (false, true, true, true), (true, false, false, true), (false, false, true, false), (true, true, false, false),
    ], [100, PasswordBlocklist.indexStride])
    func everyListedHashIsFoundAndNoOther(_ format: (Bool, Bool, Bool, Bool), _ stride: Int) throws {
        let (lowercase, counts, crlf, finalNewline) = format
        let blocklist = try Self.open(
            Self.write(Self.blocklistText(lowercase: lowercase, counts: counts, crlf: crlf, finalNewline: finalNewline)),
            stride: stride)
        for password in Self.listed { #expect(blocklist.contains(password: password), "\(password)") }
        for index in 0..<200 { #expect(!blocklist.contains(password: "unlisted-\(index)")) }
    }

    /// The first and last lines, hashes below the first, above the last and between two lines
    /// (next to index lines too, with an index line every 100 bytes: about every other line).
    @Test(arguments: [100, PasswordBlocklist.indexStride])
    func binarySearchEdges(_ stride: Int) throws {
        let hashes = Self.listed.map { SHA1.digest($0) }.sorted { $0.lexicographicallyPrecedes($1) }
        let blocklist = try Self.open(Self.write(Self.blocklistText()), stride: stride)
        #expect(blocklist.contains(sha1: hashes.first!))
        #expect(blocklist.contains(sha1: hashes.last!))
        #expect(!blocklist.contains(sha1: [UInt8](repeating: 0, count: 20)))
        #expect(!blocklist.contains(sha1: [UInt8](repeating: 0xFF, count: 20)))
        for index in hashes.indices.dropLast() {
            var between = hashes[index]
            between[19] &+= 1  // just above a line; below the next unless they share 19 bytes
            if between != hashes[index + 1] { #expect(!blocklist.contains(sha1: between)) }
            var below = hashes[index + 1]
            below[19] &-= 1
            if below != hashes[index] { #expect(!blocklist.contains(sha1: below)) }
        }
        // One line only.
        let single = try PasswordBlocklist(path: Self.write(SHA1.hexDigest("only") + "\n"))
        #expect(single.contains(password: "only"))
        #expect(!single.contains(password: "other"))
    }

    @Test func blocklistedPasswordIsRefusedAtSignUp() throws {
        let blocklist = try PasswordBlocklist(path: Self.write(Self.blocklistText()))
        let h = try Harness(configuration: AuthConfiguration(passwordPolicy: PasswordPolicy(blocklist: blocklist)))
        let refused = h.signUp(["username": "bob", "password": "breached-17"])
        #expect(onlyError(refused)?.code == 142)
        #expect(onlyError(refused)?.message == Self.message)
        // Exact: the corpus hashes passwords as they were typed.
        #expect(h.signUp(["username": "bob", "password": "Breached-17"]).errors.isEmpty)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("0123\n", "line 1 of"),
        (SHA1.hexDigest("a") + "\nnot a hash\n", "line 2 of"),
        (SHA1.hexDigest("a") + ":\n", "line 1 of"),
        (SHA1.hexDigest("a") + ":12x\n", "line 1 of"),
        (SHA1.hexDigest("a") + "\n\n", "line 2 of"),
        (SHA1.hexDigest("a") + "0\n", "line 1 of"),
        ("\u{FEFF}" + SHA1.hexDigest("a") + "\n", "line 1 of"),
        (["a", "b", "c"].map { SHA1.hexDigest($0) }.joined(separator: "\n"), "is not sorted by hash: line "),
    ])
    func malformedFilesAreRefused(_ text: String, _ expected: String) throws {
        let path = try Self.write(text)
        #expect {
            _ = try PasswordBlocklist(path: path)
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains(path)
        }
    }

    @Test func missingOrUnreadableFilesAreRefused() throws {
        let directory = TemporaryDirectory.make(prefix: "gh-blocklist")
        #expect { _ = try PasswordBlocklist(path: directory + "/absent.txt") } throws: { error in
            "\(error)" == "cannot open \(directory)/absent.txt: No such file or directory"
        }
        #expect { _ = try PasswordBlocklist(path: directory) } throws: { error in
            "\(error)" == "\(directory) is not a regular file"
        }
    }

    /// A large file is checked at sampled lines: a line out of order or malformed at a sample is
    /// found (here the last line, always sampled).
    @Test func sampledCheckOfALargeFile() throws {
        let good = Self.blocklistText()
        func open(_ text: String) throws -> PasswordBlocklist {
            try PasswordBlocklist(path: Self.write(text), fullCheckBytes: 100, indexStride: 1000)
        }
        #expect(try open(good).contains(password: "breached-3"))
        let unsorted = good + String(repeating: "0", count: 40) + ":1\r\n"
        #expect { _ = try open(unsorted) } throws: { error in
            "\(error)".contains("is not sorted by hash: the line at byte \(good.utf8.count) is out of order")
        }
        // The first and last lines swapped (both are always checked).
        var lines = good.split(separator: "\r\n", omittingEmptySubsequences: false)  // the last is empty
        lines.swapAt(0, lines.count - 2)
        #expect { _ = try open(lines.joined(separator: "\r\n")) } throws: { error in
            "\(error)".contains("is out of order")
        }
        #expect { _ = try open(good + "garbage") } throws: { error in
            "\(error)".contains("the line at byte \(good.utf8.count) of")
        }
    }
}
