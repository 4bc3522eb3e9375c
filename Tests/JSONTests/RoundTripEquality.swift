import JSON

// Shared with the json fuzzer (Fuzz/build.sh compiles this file into it): keep it to JSON's public API.

/// Whether `parsed` is what writing then parsing `original` must give. Integral doubles are
/// written as integers (as JavaScript does), so they may come back as `.int` with the same numeric
/// value; every other double must come back bit-for-bit, sign of zero included.
func matchesAfterRoundTrip(_ parsed: JSON, _ original: JSON) -> Bool {
    switch (parsed, original) {
    case (.double(let got), .double(let sent)):
        return got == sent && got.sign == sent.sign
    case (.int(let got), .double(let sent)):
        return sent.rounded() == sent && Double(got) == sent && !(sent == 0 && sent.sign == .minus)
    case (.array(let got), .array(let sent)):
        return got.count == sent.count && zip(got, sent).allSatisfy(matchesAfterRoundTrip)
    case (.object(let got), .object(let sent)):
        return got.keys == sent.keys && zip(got.values, sent.values).allSatisfy(matchesAfterRoundTrip)
    default:
        return parsed == original
    }
}
