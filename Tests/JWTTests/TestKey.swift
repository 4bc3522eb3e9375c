import Foundation
import JSON
import TestSupport

/// A key pair made with the `openssl` command, its public half as a JWK, and signing with
/// `openssl dgst` (an implementation independent of the code under test).
struct TestKey: Sendable {
    enum Kind: Sendable { case rsa(bits: Int), p256 }

    let kind: Kind
    /// The private key, PEM.
    let privateKey: [UInt8]
    /// The public key, PEM.
    let publicKey: [UInt8]
    /// The public key as a JWK object, without `kid` or `alg`.
    let jwk: JSONObject

    static let rsa = Result { try TestKey(.rsa(bits: 2048)) }
    static let ec = Result { try TestKey(.p256) }

    init(_ kind: Kind) throws {
        self.kind = kind
        switch kind {
        case .rsa(let bits):
            privateKey = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)"])
            // "Modulus=<hex>"; genpkey's public exponent is 65537 (AQAB).
            let text = String(decoding: try openssl(["rsa", "-in", "{key}", "-noout", "-modulus"], key: privateKey), as: UTF8.self)
            let hex = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
            jwk = ["kty": "RSA", "n": .string(base64url(bytes(hex: hex))), "e": "AQAB"]
        case .p256:
            privateKey = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
            // The SubjectPublicKeyInfo ends with the uncompressed point 04 || x || y.
            let spki = try openssl(["pkey", "-in", "{key}", "-pubout", "-outform", "DER"], key: privateKey)
            let point = Array(spki.suffix(64))
            jwk = ["kty": "EC", "crv": "P-256", "x": .string(base64url(Array(point[..<32]))), "y": .string(base64url(Array(point[32...])))]
        }
        publicKey = try openssl(["pkey", "-in", "{key}", "-pubout"], key: privateKey)
    }

    /// The JWK with extra members (`kid`, `alg`).
    func jwk(_ extra: JSONObject) -> JSONObject {
        var object = jwk
        for (key, value) in extra { object[key] = value }
        return object
    }

    /// A compact token over `header` and `claims` signed by this key: RS256's PKCS#1 v1.5
    /// signature as is, ES256's DER signature converted to r || s.
    func sign(header: JSONObject, claims: JSONObject) throws -> String {
        let input = unsignedPrefix(header: header, claims: claims)
        let signature = try openssl(["dgst", "-sha256", "-sign", "{key}"], key: privateKey, input: Array(input.utf8))
        switch kind {
        case .rsa: return input + "." + base64url(signature)
        case .p256: return input + "." + base64url(try rawECDSA(der: signature))
        }
    }
}

/// `base64url(header).base64url(claims)`.
func unsignedPrefix(header: JSONObject, claims: JSONObject) -> String {
    base64url(JSON.object(header).serialized()) + "." + base64url(JSON.object(claims).serialized())
}

func base64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

func base64url(_ text: String) -> String { base64url(Array(text.utf8)) }

func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

/// DER `SEQUENCE { INTEGER r, INTEGER s }` (short lengths, as P-256 signatures have) to r || s of 32 bytes each.
func rawECDSA(der: [UInt8]) throws -> [UInt8] {
    guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { throw TestFailure("not a DER ECDSA signature") }
    var offset = 2
    var raw: [UInt8] = []
    for _ in 0..<2 {
        guard der[offset] == 0x02 else { throw TestFailure("not a DER INTEGER") }
        let length = Int(der[offset + 1])
        var integer = Array(der[(offset + 2)..<(offset + 2 + length)])
        while integer.count > 32, integer.first == 0 { integer.removeFirst() }
        raw += [UInt8](repeating: 0, count: 32 - integer.count) + integer
        offset += 2 + length
    }
    return raw
}

/// Runs `/usr/bin/openssl` with `arguments` in a new directory, `{key}` standing for a file
/// holding `key`, and `input` as a file named by an added last argument; returns standard output.
@discardableResult
func openssl(_ arguments: [String], key: [UInt8]? = nil, input: [UInt8]? = nil) throws -> [UInt8] {
    let directory = TemporaryDirectory.make(prefix: "jwt")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var arguments = arguments.map { $0 == "{key}" ? directory + "/key.pem" : $0 }
    if let key { try Data(key).write(to: URL(fileURLWithPath: directory + "/key.pem")) }
    if let input {
        try Data(input).write(to: URL(fileURLWithPath: directory + "/input"))
        arguments.append(directory + "/input")
    }
    let output = open(directory + "/output", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let errors = open(directory + "/errors", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard output >= 0, errors >= 0 else { throw TestFailure("cannot open files in \(directory)") }
    let pid: pid_t
    do {
        defer {
            close(output)
            close(errors)
        }
        pid = try spawnChild(["/usr/bin/openssl"] + arguments, environment: ["PATH": "/usr/bin:/bin"], output: output, errors: errors)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else {
        let log = (try? String(contentsOfFile: directory + "/errors", encoding: .utf8)) ?? ""
        throw TestFailure("openssl \(arguments.first ?? "") failed: \(log)")
    }
    return Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/output")))
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
