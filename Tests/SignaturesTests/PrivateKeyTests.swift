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
