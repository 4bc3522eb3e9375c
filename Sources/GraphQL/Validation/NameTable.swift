/// Distinct names numbered 0, 1, 2, … in the order they were first inserted, for the
/// lookups validation makes at almost every node (a field on its parent type, a
/// fragment by name).
///
/// Names are hashed with FNV-1a over their UTF-8 bytes rather than `Hasher`'s SipHash,
/// whose per-call setup costs more than the whole lookup of a short name. Up to
/// `linearLimit` names are found by scanning their hashes; larger tables add open
/// addressing. A colliding set of names (which a document could be built to have)
/// only lengthens the probe sequences, each step one integer comparison.
struct NameTable: Sendable {
    /// The names by number.
    private(set) var names: [String] = []
    /// The hash of each name.
    private var hashes: [UInt64] = []
    /// Open addressing over `hashes`: per slot, 1 + a name's number, or 0 when empty.
    /// Empty while the table has at most `linearLimit` names.
    private var slots: [Int32] = []
    private static let linearLimit = 8

    init() {}

    /// A table of `names`, each numbered by its first occurrence.
    init(_ names: some Sequence<String>) {
        for name in names { insert(name) }
    }

    /// Room for `capacity` names before the arrays grow (the slots are not reserved).
    mutating func reserveCapacity(_ capacity: Int) {
        names.reserveCapacity(capacity)
        hashes.reserveCapacity(capacity)
    }

    var count: Int { names.count }
    var isEmpty: Bool { names.isEmpty }

    /// FNV-1a of a name's UTF-8 bytes.
    @inline(__always)
    static func hash(_ name: String) -> UInt64 {
        @inline(__always) func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }
        if let hash = name.utf8.withContiguousStorageIfAvailable(fnv) { return hash }
        return Array(name.utf8).withUnsafeBufferPointer(fnv)
    }

    /// The number of `name`, or nil when it is not in the table.
    @inline(__always)
    func number(of name: String) -> Int? { number(of: name, hash: Self.hash(name)) }

    /// The number of `name`, whose `hash(_:)` is `hash`.
    func number(of name: String, hash: UInt64) -> Int? {
        if slots.isEmpty {
            for index in hashes.indices where hashes[index] == hash && names[index] == name { return index }
            return nil
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if hashes[entry - 1] == hash && names[entry - 1] == name { return entry - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// Adds `name` unless the table has it; returns its number and whether it was added.
    @discardableResult
    mutating func insert(_ name: String) -> (number: Int, inserted: Bool) {
        let hash = Self.hash(name)
        if let number = number(of: name, hash: hash) { return (number, false) }
        names.append(name)
        hashes.append(hash)
        if !slots.isEmpty || names.count > Self.linearLimit {
            // Keep the load at most one half.
            if names.count * 2 > slots.count {
                rebuildSlots(capacity: max(32, slots.count * 2))
            } else {
                place(names.count - 1)
            }
        }
        return (names.count - 1, true)
    }

    private mutating func rebuildSlots(capacity: Int) {
        slots = Array(repeating: 0, count: capacity)
        for number in names.indices { place(number) }
    }

    private mutating func place(_ number: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[number]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(number + 1)
    }
}
