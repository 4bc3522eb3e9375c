import WebAuthn

/// cbor-cose: arbitrary bytes as a CBOR item, a COSE key and authenticator data. An item that
/// decodes must re-encode (shortest form) to bytes that decode to the same item and encode to
/// the same bytes again; a COSE key that is accepted must be ES256 or RS256 and must not verify
/// a signature made by no key; authenticator data that parses must account for every byte.
let message = Array("cbor-cose fuzzer".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let item = try? CBORDecoder().decode(bytes) {
        let encoded = item.encoded()
        guard let again = try? CBORDecoder().decode(encoded) else { preconditionFailure("an encoded item does not decode") }
        precondition(again == item, "an item changed in a round trip")
        precondition(again.encoded() == encoded, "the encoding is not stable")
    }
    if let key = try? COSEKey(encoded: bytes) {
        precondition(key.encoded == bytes)
        precondition(!key.verify(signature: Array(bytes.prefix(72)), message: message), "a signature verified that no key made")
    }
    if let authenticatorData = try? AuthenticatorData(bytes) {
        precondition(authenticatorData.bytes == bytes && authenticatorData.rpIdHash.count == 32)
        precondition(authenticatorData.flags.contains(.attestedCredentialData) == (authenticatorData.attestedCredential != nil))
        precondition(authenticatorData.flags.contains(.extensionData) == (authenticatorData.extensions != nil))
    }
    return 0
}
