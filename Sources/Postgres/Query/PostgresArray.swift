/// A one-dimensional array parameter (`bytea[]`, `text[]`, `int8[]`, …) of a built-in element
/// type, in the binary array format; for `= ANY($1)` lookups of many keys in one statement.
/// NULL elements are sent as SQL NULL.
public struct PostgresArray<Element: PostgresEncodable>: PostgresEncodable {
    public var elements: [Element]

    public init(_ elements: [Element]) { self.elements = elements }

    /// The array type of `Element`'s type (`pg_type.dat`'s `typarray`).
    public static var postgresDataType: PostgresDataType {
        let array: UInt32
        switch Element.postgresDataType.oid {
        case 16: array = 1000
        case 17: array = 1001
        case 20: array = 1016
        case 21: array = 1005
        case 23: array = 1007
        case 25: array = 1009
        case 114: array = 199
        case 701: array = 1022
        case 1184: array = 1185
        case 3802: array = 3807
        default: preconditionFailure("no array type known for element type \(Element.postgresDataType)")
        }
        return PostgresDataType(oid: array)
    }

    /// Header (dimensions, null flag, element type, size and lower bound), then each element
    /// as a length (-1 for NULL) and its bytes.
    public func encodeBinary(into buffer: inout [UInt8]) -> Bool {
        buffer.appendBigEndian(Int32(elements.isEmpty ? 0 : 1))
        let flagsAt = buffer.count
        buffer.appendBigEndian(Int32(0))
        buffer.appendBigEndian(Element.postgresDataType.oid)
        if !elements.isEmpty {
            buffer.appendBigEndian(Int32(elements.count))
            buffer.appendBigEndian(Int32(1))
        }
        var hasNull = false
        for element in elements {
            let lengthAt = buffer.count
            buffer.appendBigEndian(Int32(0))
            if element.encodeBinary(into: &buffer) {
                let length = Int32(buffer.count - lengthAt - 4).bigEndian
                withUnsafeBytes(of: length) { bytes in
                    for i in 0..<4 { buffer[lengthAt + i] = bytes[i] }
                }
            } else {
                hasNull = true
                for i in 0..<4 { buffer[lengthAt + i] = 0xFF }  // -1: NULL
            }
        }
        if hasNull { buffer[flagsAt + 3] = 1 }
        return true
    }
}
