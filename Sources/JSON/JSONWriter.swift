/// Writes JSON values as compact UTF-8 text straight into a byte buffer.
///
/// - Object keys are written in insertion order; there is no whitespace.
/// - Strings escape `"`, `\` and the control characters (`\b \f \n \r \t`, others `\u00XX`), and
///   also U+2028 and U+2029 (`\u2028`, `\u2029`) so the output is safe inside JavaScript.
///   Everything else, including non-ASCII, is written as raw UTF-8.
/// - Integers are exact. Doubles use the shortest digits that round-trip, laid out as JavaScript's
///   `Number.prototype.toString` does: `1.0` → `1`, `1e21` → `1e+21`, `1e-7` → `1e-7`,
///   `0.000001` → `0.000001`. Unlike JavaScript, `-0.0` keeps its sign (`-0`).
/// - A non-finite double (NaN, ±infinity) has no JSON form and is a programming error; it is
///   written as `null`.
///
/// Writing recurses once per level of nesting, so values should have a bounded depth (as parsed
/// values and GraphQL responses do).
public enum JSONWriter {
    /// Appends the compact JSON text of `value` to `output`.
    public static func write(_ value: JSON, to output: inout [UInt8]) {
        StagedBytes.staging(to: &output) { write(value, to: &$0) }
    }

    /// Appends the compact JSON text of `value` to `output`, the nested values read in
    /// place rather than copied out of their arrays.
    static func write(_ value: JSON, to output: inout StagedBytes) {
        switch value {
        case .null: output.append(contentsOf: "null")
        case .bool(let bool): output.append(contentsOf: bool ? "true" : "false")
        case .int(let int): writeInt(int, to: &output)
        case .double(let double): writeDouble(double, to: &output)
        case .string(let string): output.appendJSONString(string)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            array.withUnsafeBufferPointer { items in
                for index in items.indices {
                    if index != 0 { output.append(UInt8(ascii: ",")) }
                    write(items[index], to: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            object.storedKeys.withUnsafeBufferPointer { keys in
                object.storedValues.withUnsafeBufferPointer { values in
                    for index in keys.indices {
                        if index != 0 { output.append(UInt8(ascii: ",")) }
                        output.appendJSONString(keys[index])
                        output.append(UInt8(ascii: ":"))
                        write(values[index], to: &output)
                    }
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `string` as a quoted, escaped JSON string to any ``JSONOutput`` (the one
    /// escaping routine: the log's lines use it too).
    @inlinable
    public static func writeString<Output: JSONOutput>(_ string: String, to output: inout Output) {
        output.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            writeEscaped(bytes, to: &output)
        }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeEscaped($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The bytes `writeEscaped` looks at twice (`"`, `\`, control characters and 0xE2, the
    /// lead byte of U+2028 and U+2029); every other byte is written as it is.
    @inlinable
    static func mayNeedEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2
    }

    /// Whether any of the eight bytes of `word` may need escaping (``mayNeedEscaping(_:)-(UInt8)``;
    /// a false alarm only after a byte that does): a byte below 0x20, or equal to `"`, `\\` or 0xE2.
    /// Always inlined: a few operations, in the loops that scan every string written.
    @inlinable @inline(__always)
    static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        // A byte below n (n ≤ 0x80) sets its high bit in (x − n·ones) & ~x; a byte equal to c is one of x ^ c·ones below 1.
        func below(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- n &* ones) & ~x & highBits }
        return below(word, 0x20) | below(word ^ (0x22 &* ones), 1) | below(word ^ (0x5C &* ones), 1)
            | below(word ^ (0xE2 &* ones), 1) != 0
    }

    /// Appends `value` in decimal.
    public static func writeInt<Output: JSONOutput>(_ value: Int, to output: inout Output) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            output.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            while magnitude > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Appends `value` in the shortest round-trip form, laid out as JavaScript does; `null` if not finite.
    public static func writeDouble<Output: JSONOutput>(_ value: Double, to output: inout Output) {
        guard value.isFinite else {
            output.append(contentsOf: "null")
            return
        }
        if value == 0 {
            output.append(contentsOf: value.sign == .minus ? "-0" : "0")
            return
        }
        // Swift's description has the shortest round-trip digits (`1e-05`, `100.0`, `1.5e+300`);
        // take its digits and decimal exponent and lay them out per ECMA-262 Number::toString.
        // A description is at most 24 bytes, so it is usually a small (unallocated) String.
        var description = value.magnitude.description
        description.withUTF8 { text in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
                var count = 0          // significant digits collected
                var pointPosition = 0  // value = 0.digits × 10^pointPosition
                var seenPoint = false
                var index = 0
                while index < text.count {
                    let byte = text[index]
                    if byte == UInt8(ascii: ".") {
                        seenPoint = true
                    } else if byte == UInt8(ascii: "e") {
                        break
                    } else if count == 0 && byte == UInt8(ascii: "0") {
                        if seenPoint { pointPosition -= 1 }  // a leading zero after the point
                    } else {
                        digits[count] = byte
                        count += 1
                        if !seenPoint { pointPosition += 1 }
                    }
                    index += 1
                }
                if index < text.count {  // the exponent: e[+-]digits
                    index += 1
                    var exponentNegative = false
                    if text[index] == UInt8(ascii: "-") { exponentNegative = true; index += 1 }
                    else if text[index] == UInt8(ascii: "+") { index += 1 }
                    var exponent = 0
                    while index < text.count {
                        exponent = exponent * 10 + Int(text[index] - UInt8(ascii: "0"))
                        index += 1
                    }
                    pointPosition += exponentNegative ? -exponent : exponent
                }
                while count > 1 && digits[count - 1] == UInt8(ascii: "0") { count -= 1 }

                if value < 0 { output.append(UInt8(ascii: "-")) }
                let k = count, n = pointPosition
                let significant = UnsafeBufferPointer(rebasing: digits[0..<k])
                if k <= n && n <= 21 {
                    output.append(contentsOf: significant)
                    for _ in 0..<(n - k) { output.append(UInt8(ascii: "0")) }
                } else if 0 < n && n <= 21 {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[0..<n]))
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[n...]))
                } else if -6 < n && n <= 0 {
                    output.append(UInt8(ascii: "0"))
                    output.append(UInt8(ascii: "."))
                    for _ in 0..<(-n) { output.append(UInt8(ascii: "0")) }
                    output.append(contentsOf: significant)
                } else {
                    output.append(significant[0])
                    if k > 1 {
                        output.append(UInt8(ascii: "."))
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[1...]))
                    }
                    output.append(UInt8(ascii: "e"))
                    output.append(n - 1 < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                    writeInt(abs(n - 1), to: &output)
                }
            }
        }
    }

    /// Copies runs that need no escaping in one go; escapes the rest.
    @inlinable
    static func writeEscaped<Output: JSONOutput>(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout Output) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            // Eight bytes at a time while none of them may need escaping (most text).
            if index + 8 <= count,
                !mayNeedEscaping(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            if !mayNeedEscaping(byte) {
                index += 1
                continue
            }
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
            if byte == 0xE2 {
                guard index + 2 < count, bytes[index + 1] == 0x80,
                    bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9
                else {
                    index += 1
                    continue
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0xE2:
                output.append(contentsOf: bytes[index + 2] == 0xA8 ? "u2028" : "u2029")
                index += 2
            default:
                output.append(contentsOf: "u00")
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0xF))
            }
            index += 1
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
    }

    @inlinable
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

extension JSON {
    /// The compact JSON text of this value as UTF-8; see ``JSONWriter`` for the exact form.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.write(self, to: &output)
        return output
    }

    /// The compact JSON text of this value as a `String`; see ``JSONWriter`` for the exact form.
    public func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends the compact JSON text of this value to `output`.
    public func write(to output: inout [UInt8]) {
        JSONWriter.write(self, to: &output)
    }
}
