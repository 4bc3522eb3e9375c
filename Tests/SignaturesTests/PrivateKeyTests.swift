import Foundation
import Synchronization
import TestSupport
import Signatures
import Testing

/// Generated keys sign what `PublicKey` verifies, and their public numbers have WebAuthn's widths.
struct PrivateKeyTests {
    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048])
    func signatureVerifiesWithThePublicHalf(kind: PrivateKey.Kind) throws {
        let key = try PrivateKey(generating: kind)
        let message = Array("authenticator data and client data hash".utf8)
        let signature = try key.signSHA256(message)
        let publicKey = try key.publicKey()
        #expect(try publicKey.verifySHA256(signature: signature, message: message))
        #expect(try !publicKey.verifySHA256(signature: signature, message: message + [0]))
        let other = try PrivateKey(generating: kind).publicKey()
        #expect(try !other.verifySHA256(signature: signature, message: message))
    }

    /// Threads signing with one key at once (each copies the key's signing context) all make
    /// signatures that verify.
    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048])
    func concurrentSignaturesVerify(kind: PrivateKey.Kind) throws {
        let key = try PrivateKey(generating: kind)
        let publicKey = try key.publicKey()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                let message = Array("thread \(thread) message \(index)".utf8)
                let verified = (try? key.signSHA256(message)).map { (try? publicKey.verifySHA256(signature: $0, message: message)) == true }
                if verified != true { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func p256CoordinatesAre32BytesEach() throws {
        guard case .p256(let x, let y) = try PrivateKey(generating: .p256).publicNumbers() else {
            Issue.record("not P-256 numbers")
            return
        }
        #expect(x.count == 32 && y.count == 32)
    }

    @Test func rsaModulusIs2048BitsWithExponent65537() throws {
        guard case .rsa(let modulus, let exponent) = try PrivateKey(generating: .rsa2048).publicNumbers() else {
            Issue.record("not RSA numbers")
            return
        }
        #expect(modulus.count == 256 && modulus[0] & 0x80 != 0)
        #expect(exponent == [0x01, 0x00, 0x01])
    }
}

/// A key's DER encoding reads back as the same key; what is not a P-256 or RSA-2048 key is refused.
struct PrivateKeyEncodingTests {
    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048])
    func derRoundTripKeepsTheKey(kind: PrivateKey.Kind) throws {
        let key = try PrivateKey(generating: kind)
        let read = try PrivateKey(der: key.derEncoded())
        #expect(read.kind == kind)
        #expect(try read.publicNumbers() == key.publicNumbers())
        let message = Array("signed by the key read back".utf8)
        #expect(try key.publicKey().verifySHA256(signature: read.signSHA256(message), message: message))
    }

    @Test func garbageIsRefused() {
        #expect(throws: SignatureError.invalidKey("not a DER-encoded private key")) { try PrivateKey(der: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: SignatureError.invalidKey("not a DER-encoded private key")) { try PrivateKey(der: []) }
    }

    /// A P-384 key (made by the `openssl` command) is an EC key, but not one that signs ES256.
    @Test func anotherCurveIsRefused() throws {
        let der = try opensslOutput(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-outform", "DER"])
        #expect(throws: SignatureError.invalidKey("an EC private key on another curve than P-256")) { try PrivateKey(der: der) }
    }

    /// The DER signature of a P-256 key and the JWS form (r || s) convert into each other.
    @Test func ecdsaSignatureFormsConvert() throws {
        let key = try PrivateKey(generating: .p256)
        let message = Array("header.claims".utf8)
        for _ in 0..<20 {
            let der = try key.signSHA256(message)
            let raw = try PublicKey.rawECDSASignature(der: der)
            #expect(raw.count == 64)
            #expect(try PublicKey.derECDSASignature(raw: raw) == der)
        }
        #expect(throws: SignatureError.self) { try PublicKey.rawECDSASignature(der: [0x30, 0x00]) }
    }
}

/// Standard output of `/usr/bin/openssl` with `arguments`.
private func opensslOutput(_ arguments: [String]) throws -> [UInt8] {
    let directory = TemporaryDirectory.make(prefix: "sig")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let output = open(directory + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let pid: pid_t
    do {
        defer { close(output) }
        pid = try spawnChild(["/usr/bin/openssl"] + arguments, environment: ["PATH": "/usr/bin:/bin"], output: output, errors: output)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/out")))
    guard status == 0 else { throw OpenSSLFailure(description: String(decoding: bytes, as: UTF8.self)) }
    return bytes
}

private struct OpenSSLFailure: Error, CustomStringConvertible { let description: String }
