import Crypto
import Testing
import WebAuthn

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
             .unsupportedKey("an RSA modulus above 16384 bits")),
        ]
        for (encoded, expected) in cases {
            #expect(throws: expected) { try COSEKey(encoded: encoded) }
        }
    }

    @Test func refusesAPointOffTheCurveAndAShortRSAModulus() throws {
        guard case .p256(let x, var y) = try Self.p256.get().publicNumbers() else { return }
        y[31] ^= 1
        #expect(throws: WebAuthnError.invalidKey("Invalid key: the EC point is not on P-256.")) {
            try COSEKey(encoded: map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(x)), (-3, .bytes(y))]))
        }
        // Without the full check (a stored key, checked at registration) the point is still decoded strictly.
        #expect(throws: WebAuthnError.invalidKey("Invalid key: the EC point is not on P-256.")) {
            try COSEKey(encoded: map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(x)), (-3, .bytes(y))]), fullCheck: false)
        }
        let modulus1024 = [0xc1] + [UInt8](repeating: 0x35, count: 126) + [0x01]
        #expect {
            try COSEKey(encoded: map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(modulus1024)), (-2, .bytes([1, 0, 1]))]))
        } throws: { error in
            // Refused by libcrypto's public key check or by the 2048-bit minimum, whichever comes first.
            guard case .invalidKey = error as? WebAuthnError else { return false }
            return true
        }
    }

    @Test func refusesTrailingBytes() throws {
        let encoded = COSEKey.encode(try Self.p256.get().publicNumbers())
        #expect(throws: WebAuthnError.malformedCBOR("1 bytes after the item")) { try COSEKey(encoded: encoded + [0]) }
    }
}
