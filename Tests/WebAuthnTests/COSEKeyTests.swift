import Signatures
import Testing
import WebAuthn
import WebAuthnTestSupport

/// COSE keys: ES256 (EC2, P-256) and RS256 (RSA) are read and verify their keys' signatures;
/// every other type, curve or algorithm, missing or malformed parameter and weak key is refused.
struct COSEKeyTests {
    private static let p256 = Result { try PrivateKey(generating: .p256) }
    private static let rsa = Result { try PrivateKey(generating: .rsa2048) }

    private func map(_ pairs: [(Int, CBOR)]) -> [UInt8] {
        CBOR.map(pairs.map { CBORPair(.int($0.0), $0.1) }).encoded()
    }

    @Test(arguments: [PrivateKey.Kind.p256, .rsa2048])
    func readsAndVerifies(kind: PrivateKey.Kind) throws {
        let privateKey = try (kind == .p256 ? Self.p256 : Self.rsa).get()
        let encoded = COSEKey.encode(try privateKey.publicNumbers())
        let key = try COSEKey(encoded: encoded)
        #expect(key.algorithm == (kind == .p256 ? .es256 : .rs256))
        #expect(key.encoded == encoded)
        let message = Array("signed".utf8)
        #expect(key.verify(signature: try privateKey.signSHA256(message), message: message))
        #expect(!key.verify(signature: try privateKey.signSHA256(message), message: message + [1]))
        #expect(!key.verify(signature: [0x30, 0x00], message: message))
    }

    @Test func refusesWhatIsNotAnES256OrRS256Key() throws {
        guard case .p256(let x, let y) = try Self.p256.get().publicNumbers() else { return }
        guard case .rsa(let n, let e) = try Self.rsa.get().publicNumbers() else { return }
        let cases: [([UInt8], WebAuthnError)] = [
            (CBOR.array([]).encoded(), .unsupportedKey("not a map")),
            (map([(3, .int(-7))]), .unsupportedKey("no key type (1)")),
            (map([(1, .int(2))]), .unsupportedKey("no algorithm (3)")),
            (map([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(x))]), .unsupportedKey("algorithm -8")),
            (map([(1, .int(2)), (3, .int(-35)), (-1, .int(2)), (-2, .bytes(x)), (-3, .bytes(y))]), .unsupportedKey("algorithm -35")),
            (map([(1, .int(3)), (3, .int(-7)), (-1, .bytes(n)), (-2, .bytes(e))]), .unsupportedKey("key type 3 with algorithm -7")),
            (map([(1, .int(2)), (3, .int(-7)), (-1, .int(2)), (-2, .bytes(x)), (-3, .bytes(y))]), .unsupportedKey("EC2 curve other than P-256 (1)")),
            (map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Array(x.dropFirst()))), (-3, .bytes(y))]),
             .unsupportedKey("EC2 coordinates are not two 32-byte strings")),
            (map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(x))]), .unsupportedKey("EC2 coordinates are not two 32-byte strings")),
            (map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(n))]), .unsupportedKey("RSA modulus and exponent are not byte strings")),
            (map([(1, .int(3)), (3, .int(-257)), (-1, .bytes([UInt8](repeating: 0xff, count: 2049))), (-2, .bytes(e))]),
             .unsupportedKey("an RSA modulus of 16392 bits (2048 to 4096 accepted)")),
            (map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(n)), (-2, .bytes([UInt8](repeating: 1, count: 9)))]),
             .unsupportedKey("an RSA exponent longer than 8 bytes")),
        ]
        for (encoded, expected) in cases {
            #expect(throws: expected) { try COSEKey(encoded: encoded) }
        }
    }

    @Test func refusesAPointOffTheCurve() throws {
        guard case .p256(let x, var y) = try Self.p256.get().publicNumbers() else { return }
        y[31] ^= 1
        #expect(throws: WebAuthnError.invalidKey("Invalid key: the EC point is not on P-256.")) {
            try COSEKey(encoded: map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(x)), (-3, .bytes(y))]))
        }
        // Without the full check (a stored key, checked at registration) the point is still decoded strictly.
        #expect(throws: WebAuthnError.invalidKey("Invalid key: the EC point is not on P-256.")) {
            try COSEKey(encoded: map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(x)), (-3, .bytes(y))]), fullCheck: false)
        }
    }

    /// RSA moduli outside 2048...4096 bits are refused from their length alone: libcrypto never
    /// sees them, so a stranger's 16384-bit key costs no modular arithmetic.
    @Test(arguments: [1024, 2040, 4104, 8192, 16384])
    func rsaModuliOfOtherSizesAreRefusedBeforeLibcrypto(bits: Int) throws {
        let key = KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: bits))
        let work = KeyWork.during {
            #expect(throws: WebAuthnError.unsupportedKey("an RSA modulus of \(bits) bits (2048 to 4096 accepted)")) { try COSEKey(encoded: key) }
        }
        #expect(work.isEmpty)
        // Leading zero bytes do not count towards the size.
        #expect(throws: WebAuthnError.unsupportedKey("an RSA modulus of \(bits) bits (2048 to 4096 accepted)")) {
            try COSEKey(encoded: KeyWork.rsaKey(modulus: [0, 0] + KeyWork.oddModulus(bits: bits)))
        }
    }

    /// An RSA key is built without libcrypto's public key check (whose Miller–Rabin test costs
    /// full-size modular exponentiations); a P-256 key gets the check unless read back from storage.
    @Test func rsaKeysAreBuiltWithoutLibcryptosCheck() throws {
        for bits in [2048, 4096] {
            // An arbitrary odd number, surely no product of two primes: only its size and parity are looked at.
            let work = try KeyWork.during { _ = try COSEKey(encoded: KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: bits))) }
            #expect(work == [.built], "\(bits) bits")
        }
        let rsa = COSEKey.encode(try Self.rsa.get().publicNumbers())
        #expect(try KeyWork.during { _ = try COSEKey(encoded: rsa) } == [.built])
        let p256 = COSEKey.encode(try Self.p256.get().publicNumbers())
        #expect(try KeyWork.during { _ = try COSEKey(encoded: p256) } == [.built, .checked])
        #expect(try KeyWork.during { _ = try COSEKey(encoded: p256, fullCheck: false) } == [.built])
    }

    @Test func refusesAnEvenModulusAndAnEvenOrUnitExponent() throws {
        guard case .rsa(let n, _) = try Self.rsa.get().publicNumbers() else { return }
        let even = Array(n.dropLast()) + [n.last! & 0xfe]
        let cases: [([UInt8], [UInt8], String)] = [
            (even, [1, 0, 1], "the RSA modulus is even"),
            (n, [1], "the RSA exponent is not odd and above 1"),
            (n, [1, 0, 0], "the RSA exponent is not odd and above 1"),
            (n, [0, 0], "the RSA exponent is not odd and above 1"),
        ]
        for (modulus, exponent, reason) in cases {
            #expect(throws: WebAuthnError.invalidKey("Invalid key: \(reason).")) {
                try COSEKey(encoded: map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(modulus)), (-2, .bytes(exponent))]))
            }
        }
    }

    @Test func refusesTrailingBytes() throws {
        let encoded = COSEKey.encode(try Self.p256.get().publicNumbers())
        #expect(throws: WebAuthnError.malformedCBOR("1 bytes after the item")) { try COSEKey(encoded: encoded + [0]) }
    }
}
