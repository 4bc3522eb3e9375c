/// An append-only list of (key, value) entries that readers search without a lock: for
/// values built once and then read by every request (a prepared document's execution
/// plans). Each link is a ``PublishedOnce``: a writer appends by publishing the last entry's
/// `next`, and entries are never removed, so a reader can walk the chain while others append.
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
        @usableFromInline let next: PublishedOnce<Entry>
        @usableFromInline init(key: Key, value: Value) {
            self.key = key
            self.value = value
            self.next = PublishedOnce()
        }
    }

    @usableFromInline let first: PublishedOnce<Entry>

    @inlinable public init() { first = PublishedOnce() }

    /// The value stored for `key`, if any.
    @inlinable public func value(for key: Key) -> Value? {
        var entry = first.load()
        while let current = entry {
            if current.key == key { return current.value }
            entry = current.next.load()
        }
        return nil
    }

    /// The value stored for `key`; if there is none, stores `make()`'s. When two threads
    /// race, both may call `make`, and both get the value that was published first.
    @inlinable public func value(for key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        if let found = value(for: key) { return found }
        let entry = Entry(key: key, value: try make())
        // Publish it first, else after the last entry, walking past those others publish meanwhile.
        var tail = first.storeIfNil(entry)
        while tail !== entry {
            if tail.key == key { return tail.value }
            tail = tail.next.load() ?? tail.next.storeIfNil(entry)
        }
        return entry.value
    }
}
