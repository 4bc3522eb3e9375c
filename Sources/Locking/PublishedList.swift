import Synchronization

/// An append-only list of (key, value) entries that readers search without a lock: for
/// values built once and then read by every request (a prepared document's execution
/// plans). Writers publish a new head with a compare-and-swap; entries are never removed,
/// so a reader can walk the chain it loaded while others prepend.
///
/// Meant for a handful of entries (a linear search): one per operation and executor,
/// one per object type a field completes as.
///
/// Inlinable, so that each use is specialised for its key and value types: unspecialised,
/// a lookup spent most of its time fetching generic metadata.
public final class PublishedList<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    final class Entry: Sendable {
        @usableFromInline let key: Key
        @usableFromInline let value: Value
        @usableFromInline let next: Entry?
        @usableFromInline init(key: Key, value: Value, next: Entry?) {
            self.key = key
            self.value = value
            self.next = next
        }
    }

    /// The head entry, retained once by the list (0 when empty).
    @usableFromInline let head = Atomic<UInt>(0)

    @inlinable public init() {}

    deinit {
        let bits = head.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The value stored for `key`, if any.
    @inlinable public func value(for key: Key) -> Value? {
        Self.find(key, from: head.load(ordering: .acquiring))
    }

    /// The value stored for `key`; if there is none, stores `make()`'s. When two threads
    /// race, both may call `make`, and both get the value that was published first.
    @inlinable public func value(for key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        var bits = head.load(ordering: .acquiring)
        if let found = Self.find(key, from: bits) { return found }
        let value = try make()
        while true {
            let next = bits == 0 ? nil : Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            let entry = Unmanaged.passRetained(Entry(key: key, value: value, next: next))
            let newBits = UInt(bitPattern: entry.toOpaque())
            let (exchanged, current) = head.compareExchange(
                expected: bits, desired: newBits, successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
            if exchanged {
                // The old head is now kept by the new entry's `next`: drop the list's own count.
                if bits != 0 { Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
                return value
            }
            entry.release()
            bits = current
            if let found = Self.find(key, from: bits) { return found }
        }
    }

    @inlinable static func find(_ key: Key, from bits: UInt) -> Value? {
        guard bits != 0 else { return nil }
        var entry: Entry? = Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
        while let current = entry {
            if current.key == key { return current.value }
            entry = current.next
        }
        return nil
    }
}
