import OneTimeCodes
import Testing

/// Base32 against RFC 4648 §10's test vectors, and what it refuses.
struct Base32Tests {
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test(arguments: vectors) func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        #expect(Base32.decode(encoded.lowercased()) == Array(plain.utf8), "case-insensitive")
        let unpadded = String(encoded.prefix { $0 != "=" })
        #expect(Base32.decode(unpadded) == Array(plain.utf8), "padding is optional")
        #expect(Base32.encode(Array(plain.utf8)) == unpadded)
    }

    @Test(arguments: [
        "MZXW6YT!", "MZXW 6YTB", "MZXW6YTB1", "MZXW6YTB0", "M", "MZX", "MZXW6Y",  // not in the alphabet; impossible lengths
        "MZ=XQ===", "MZXQ==", "MZXQ=====", "M=======", "MZXW6YTB========",  // padding inside, short, long, or all padding
        "MZ", "MZXX====",  // leftover bits not zero ("MY" is "f")
    ])
    func refused(_ text: String) {
        #expect(Base32.decode(text) == nil)
    }

    @Test func roundTripsEveryLength() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        }
    }
}
