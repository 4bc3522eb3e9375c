import Signatures
import JSON
import Sodium
import Testing
import WebAuthn
import WebAuthnTestSupport

/// Authenticator data and client data parsing: the parts, the flags, and every malformed form.
struct AuthenticatorDataTests {
    private let rpIdHash = SHA256.digest("example.com")
    private static let key = Result { COSEKey.encode(try PrivateKey(generating: .p256).publicNumbers()) }

    private func attested(id: [UInt8], key: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 7, count: 16) + [UInt8(id.count >> 8), UInt8(id.count & 0xff)] + id + key
    }

    @Test func readsAnAssertionsData() throws {
        let data = try AuthenticatorData(rpIdHash + [0x05, 0x01, 0x02, 0x03, 0x04], ceremony: .authentication)
        #expect(data.rpIdHash == rpIdHash)
        #expect(data.flags == [.userPresent, .userVerified])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredential == nil && data.extensions == nil)
    }

    @Test func readsAttestedCredentialDataAndExtensions() throws {
        let key = try Self.key.get()
        let extensions = CBOR.map([CBORPair(.text("credProps"), .map([CBORPair(.text("rk"), .bool(true))]))])
        let bytes = rpIdHash + [0xc1, 0, 0, 0, 0] + attested(id: [1, 2, 3], key: key) + extensions.encoded()
        let data = try AuthenticatorData(bytes, ceremony: .registration)
        #expect(data.attestedCredential?.credentialId == [1, 2, 3])
        #expect(data.attestedCredential?.aaguid == [UInt8](repeating: 7, count: 16))
        #expect(data.attestedCredential?.publicKey.encoded == key)
        #expect(data.extensions == extensions)
        #expect(data.bytes == bytes)
    }

    @Test func refusesMalformedData() throws {
        let key = try Self.key.get()
        let cases: [([UInt8], WebAuthnError)] = [
            (Array(rpIdHash.prefix(20)), .malformedAuthenticatorData("20 bytes, at least 37 required")),
            (rpIdHash + [0x01, 0, 0, 0, 0, 0], .malformedAuthenticatorData("1 bytes after the last part")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 17), .malformedAuthenticatorData("attested credential data is cut short")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + attested(id: [], key: key), .malformedAuthenticatorData("a credential id of 0 bytes")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + attested(id: [UInt8](repeating: 1, count: 1024), key: key),
             .malformedAuthenticatorData("a credential id of 1024 bytes")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, 9, 1, 2], .malformedAuthenticatorData("the credential id is cut short")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + attested(id: [1], key: Array(key.dropLast())), .malformedCBOR("a string longer than the input")),
            (rpIdHash + [0x41, 0, 0, 0, 0] + attested(id: [1], key: CBOR.map([]).encoded()), .unsupportedKey("no key type (1)")),
            (rpIdHash + [0x81, 0, 0, 0, 0] + [0x01], .malformedAuthenticatorData("extension outputs are not a map")),
            (rpIdHash + [0x81, 0, 0, 0, 0], .malformedCBOR("the input ends inside an item")),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try AuthenticatorData(bytes, ceremony: .registration) }
        }
    }

    /// An assertion never carries attested credential data (§6.1): the AT flag is refused before
    /// the key that follows it is read, whatever that key is.
    @Test func anAssertionWithAttestedCredentialDataIsRefusedUnread() throws {
        let huge = KeyWork.rsaKey(modulus: KeyWork.oddModulus(bits: 16384))
        for key in [try Self.key.get(), huge] {
            let bytes = rpIdHash + [0x45, 0, 0, 0, 1] + attested(id: [1, 2, 3], key: key)
            let work = KeyWork.during {
                #expect(throws: WebAuthnError.malformedAuthenticatorData("the AT flag (attested credential data) in an assertion")) {
                    try AuthenticatorData(bytes, ceremony: .authentication)
                }
            }
            #expect(work.isEmpty)
        }
    }

    @Test func readsClientData() throws {
        let json = #"{"type":"webauthn.get","challenge":"AQID","origin":"https://example.com","crossOrigin":false,"other":1}"#
        let data = try ClientData(Array(json.utf8))
        #expect(data.type == "webauthn.get" && data.challenge == [1, 2, 3] && data.origin == "https://example.com" && !data.crossOrigin)
        #expect(try ClientData(Array(#"{"type":"t","challenge":"","origin":"o"}"#.utf8)).crossOrigin == false)
    }

    @Test(arguments: [
        ("[1]", "not an object"), (#"{"type":"#, "not JSON"), (#"{"challenge":"AQID","origin":"o"}"#, "no type"),
        (#"{"type":"t","origin":"o"}"#, "no base64url challenge"), (#"{"type":"t","challenge":"AQ==","origin":"o"}"#, "no base64url challenge"),
        (#"{"type":"t","challenge":"AQ"}"#, "no origin"), (#"{"type":"t","challenge":"AQ","origin":"o","crossOrigin":"no"}"#, "crossOrigin is not a boolean"),
    ])
    func refusesMalformedClientData(json: String, reason: String) {
        #expect {
            _ = try ClientData(Array(json.utf8))
        } throws: { error in
            guard case .malformedClientData(let detail) = error as? WebAuthnError else { return false }
            return detail.hasPrefix(reason)
        }
    }

    @Test func refusesOversizedClientData() {
        #expect(throws: WebAuthnError.malformedClientData("longer than 8192 bytes")) {
            try ClientData([UInt8](repeating: 0x20, count: 8193))
        }
    }
}
