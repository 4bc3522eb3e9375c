import OneTimeCodes
import Foundation
import TestSupport
import Testing

/// TOTP against RFC 6238's published SHA-1 vectors, at the edges of its window, and against an
/// independent implementation (Debian's python3-pyotp).
struct TOTPTests {
    /// RFC 6238 Appendix B: the SHA-1 seed is the ASCII of "12345678901234567890"; codes of 8 digits.
    static let rfcSecret = Array("12345678901234567890".utf8)
    static let rfcVectors: [(TimeInterval, String)] = [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ]

    @Test(arguments: rfcVectors) func rfc6238Vectors(seconds: TimeInterval, code: String) {
        let totp = TOTP(secret: Self.rfcSecret, digits: 8)
        #expect(totp.code(at: Date(timeIntervalSince1970: seconds)) == code)
        // Six digits are the same number modulo 10^6 (the truncation does not depend on the digits).
        #expect(TOTP(secret: Self.rfcSecret).code(at: Date(timeIntervalSince1970: seconds)) == String(code.suffix(6)))
    }

    @Test func stepsAreThirtySecondsFromTheEpoch() {
        let totp = TOTP(secret: Self.rfcSecret)
        #expect(totp.step(at: Date(timeIntervalSince1970: 0)) == 0)
        #expect(totp.step(at: Date(timeIntervalSince1970: 29.999)) == 0)
        #expect(totp.step(at: Date(timeIntervalSince1970: 30)) == 1)
        #expect(totp.step(at: Date(timeIntervalSince1970: 1_111_111_109)) == 0x23523EC)
    }

    @Test func verifyAcceptsOneStepOfDriftEitherWayAndNoMore() {
        let totp = TOTP(secret: Self.rfcSecret)
        let step: Int64 = 50_000_000
        let start = Date(timeIntervalSince1970: Double(step) * 30)
        for offset in Int64(-1)...1 {
            let code = totp.code(step: step + offset)
            #expect(totp.verify(code, at: start) == step + offset)
            #expect(totp.verify(code, at: start.addingTimeInterval(29.999)) == step + offset)
        }
        #expect(totp.verify(totp.code(step: step - 2), at: start) == nil)
        #expect(totp.verify(totp.code(step: step + 2), at: start) == nil)
        // The window's edges: a code two steps old is good until its second successor ends.
        let old = totp.code(step: step - 1)
        #expect(totp.verify(old, at: start.addingTimeInterval(29.999)) == step - 1)
        #expect(totp.verify(old, at: start.addingTimeInterval(30)) == nil)
        let early = totp.code(step: step + 1)
        #expect(totp.verify(early, at: start.addingTimeInterval(-0.001)) == nil)
    }

    @Test(arguments: ["", "12345", "1234567", "12345a", " 123456", "１２３４５６"])
    func verifyRefusesMalformedCodes(_ code: String) {
        #expect(TOTP(secret: Self.rfcSecret).verify(code, at: Date()) == nil)
    }

    /// The same codes as pyotp for random secrets and times (Debian's python3-pyotp, run by
    /// Debian's /usr/bin/python3; scripts/install-deps.sh --test installs it).
    @Test func agreesWithPyOTP() throws {
        var random = SplitMix64(seed: 19)
        var cases: [(secret: [UInt8], time: Int64)] = []
        for index in 0..<200 {
            let secret = (0..<(20 + index % 13)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            cases.append((secret, Int64(random.next() % 4_000_000_000)))
        }
        let script = """
            import sys, pyotp
            for line in sys.stdin:
                secret, t = line.split()
                print(pyotp.TOTP(secret).at(int(t)))
            """
        let input = cases.map { "\(Base32.encode($0.secret)) \($0.time)" }.joined(separator: "\n") + "\n"
        let output = try runPython(script, input: input)
        let expected = output.split(separator: "\n").map(String.init)
        try #require(expected.count == cases.count, "pyotp printed: \(output)")
        for (index, entry) in cases.enumerated() {
            let totp = TOTP(secret: entry.secret)
            #expect(totp.code(at: Date(timeIntervalSince1970: Double(entry.time))) == expected[index])
        }
    }

    /// Runs `script` with Debian's python3 (not a pyenv's: its PYTHONPATH must not reach it),
    /// `input` on standard input; its standard output.
    private func runPython(_ script: String, input: String) throws -> String {
        let directory = TemporaryDirectory.make(prefix: "totp")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inputPath = directory + "/input", outputPath = directory + "/output"
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(output) }
        let pid = try spawnChild(
            ["/bin/sh", "-c", "exec /usr/bin/python3 -c \"$0\" < \"$1\"", script, inputPath],
            environment: ["PATH": "/usr/bin:/bin"], output: output, errors: output)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        guard status == 0 else {
            throw PythonFailure(description: "python3 with pyotp failed (Debian's python3-pyotp: scripts/install-deps.sh --test): \(text)")
        }
        return text
    }

    struct PythonFailure: Error, CustomStringConvertible { let description: String }
}
