import Foundation
import JSON
import JWT

/// jwt: arbitrary bytes as a compact token and as a key set. A token that parses is verified
/// with a fixed RSA and a fixed P-256 key (made once with the openssl command; public halves
/// only) and its claims checked; a signature may verify only for the two seed tokens those
/// keys signed, since any other text is another signing input or signature (base64url is
/// canonical). A key set that parses keeps only RSA and EC keys.
let keySet = try! JSONWebKeySet(data: Array(#"""
{"keys": [{"kty": "RSA", "kid": "r", "n": "tgyYm2CEKgLHzdYA01jx0GV3QPC108uW_CiR_yLAaqDNKch33xb5cMFXasAhi2aSYaQxv2HGRWjYOyoKmRHy_N8zlfkGbR051fKDJOb-6kqYl9ge7QIc_x712DUTqU_pOkivGJw6B0ZAqRT2gAJ1Fo89T7-I2IGvxxQUU4x4wKtGPq-DWE37QMlAZsuO8lHBHrMwAtVcqqSPTWq6vSkI1OHGnf-AU4pHK7KER4fyKx22OOvzPtQzbxWHdDAx07iDIL8DR64sfmeeND-ObyOA8Q4PdDtT5d8Pz-R_039FS0ek_qGP5CGs-cLkc6nJWftR-J_bnhBwf0R_aO4gf_XomQ", "e": "AQAB"}, {"kty": "EC", "crv": "P-256", "kid": "e", "x": "Bo3AbXlf3MuViPUkJhbkLfEZG1kbzefM3w2iWaIPAVk", "y": "65ioDYHioi6adQSDOwpSuegLLYdgI_ZBA8yvDiosUS4"}, {"kty": "OKP", "crv": "Ed25519", "x": "AQID"}]}
"""#.utf8))
let signedTokens: Set<String> = [
    "eyJhbGciOiAiUlMyNTYiLCAia2lkIjogInIifQ.eyJpc3MiOiAiaHR0cHM6Ly9pc3N1ZXIuZXhhbXBsZSIsICJhdWQiOiBbImNsaWVudCIsICJvdGhlciJdLCAic3ViIjogInVzZXItMSIsICJleHAiOiAxODAwMDAwNjAwLCAiaWF0IjogMTc5OTk5OTk5MC41LCAibm9uY2UiOiAibi0xIn0.Oqm3chRDCeOMy317AhJbGAdkD-4y6UukFj6Z1IxAHwI7QFfKnDMGJwQwN6UwBeFaIo_8K3QHNUMt3qSZmuEvStJUf-_BJT4RjwMII0rVwt6icMMVivNFmn3jATSq0bp6hAao2LctTSKHxuZx_DeRCgn_yFX0ox7uR6IWTtqRjDnV7BGut5yKZ-4funzgK_7gY_Hk6_1r335ASvJo0mCjqqna9s-1g2HARsKkewGJomYuggRXY4UsL1AHulNVdGMJav1Q0jUv2D9ZDXtYOTUodetQEh0X326a1CxVOvRhvzwSIOUC-PvY8pl72rg84uq7Cahzq8vfJZ3wCKdEdDfIAw",
    "eyJhbGciOiAiRVMyNTYiLCAia2lkIjogImUifQ.eyJpc3MiOiAiaHR0cHM6Ly9pc3N1ZXIuZXhhbXBsZSIsICJhdWQiOiBbImNsaWVudCIsICJvdGhlciJdLCAic3ViIjogInVzZXItMSIsICJleHAiOiAxODAwMDAwNjAwLCAiaWF0IjogMTc5OTk5OTk5MC41LCAibm9uY2UiOiAibi0xIn0.99jTHtSZtCNCcXeCWFUvMlnmC2lO_suyzlF8zMZJRQ9zi957zLL9KFdzk-M0BMoab5LS7HiBZne8h0H47bfplw",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let set = try? JSONWebKeySet(data: bytes) {
        precondition(set.keys.allSatisfy { $0.keyType == "RSA" || $0.keyType == "EC" })
    }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let token = try? JSONWebToken(compact: text) else { return 0 }
    for key in keySet.keys {
        do {
            try token.verifySignature(with: key)
            precondition(signedTokens.contains(text), "a signature verified for text no key signed")
        } catch {
            _ = error.description
        }
    }
    _ = try? token.checkClaims(
        issuer: "https://issuer.example", audiences: ["client"], subject: "user-1", nonce: "n-1",
        now: Date(timeIntervalSince1970: 1_800_000_000))
    return 0
}
