import JSON

/// json: arbitrary bytes through JSONParser (default limits); a value that parses
/// must serialize to text that parses again to an equal value, and serializing is
/// canonical: the reparsed value serializes to the same bytes. "Equal" is `==`
/// except where the writer documents otherwise: an integral double is written as an
/// integer (as JavaScript does, `1E2` -> `100`), so it may come back as the `.int`
/// of the same number (JSONRoundTripTests' `matchesAfterRoundTrip`). And
/// `parseObjectMembers` (how request bodies are read) agrees with `parse`: the same
/// error, false for any other value, or members that rebuild the parsed object.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let parsed = Result { () throws(JSONError) in try JSONParser().parse(bytes) }
    var members = JSONObject()
    let read = Result { () throws(JSONError) in try JSONParser().parseObjectMembers(Array(bytes)) { members[$0] = $1 } }
    switch (parsed, read) {
    case (.failure(let error), .failure(let other)) where error == other: break
    case (.success(.object(let object)), .success(true)) where members == object: break
    case (.success(let value), .success(false)) where value.objectValue == nil && members.isEmpty: break
    default: fatalError("parse gave \(parsed), parseObjectMembers \(read) with \(members)")
    }
    let value: JSON
    do {
        value = try parsed.get()
    } catch {
        _ = error.message
        return 0
    }
    let serialized = value.serialized()
    let reparsed: JSON
    do {
        reparsed = try JSONParser().parse(serialized)
    } catch {
        fatalError("serialized() does not parse: \(error.message)\n--- serialized ---\n\(String(decoding: serialized, as: UTF8.self))\n---")
    }
    if !matchesAfterRoundTrip(reparsed, value) || reparsed.serialized() != serialized {
        fatalError("parse(serialized()) != value\n--- serialized ---\n\(String(decoding: serialized, as: UTF8.self))\n--- reserialized ---\n\(reparsed.serializedString())\n---")
    }
    return 0
}
