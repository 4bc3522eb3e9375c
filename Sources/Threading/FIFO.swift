/// A first-in, first-out queue in a ring buffer that keeps its capacity: once it has held as
/// many elements as it will hold, appending and removing allocate nothing.
///
/// The queue of every pool and batcher (waiters, jobs, lookups, cache order). Inlinable, so
/// that each use is specialised for its element type.
public struct FIFO<Element> {
    /// The ring: `count` elements from `head` on, wrapping around; the other slots are nil,
    /// so a removed element is released at once.
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var head = 0
    @usableFromInline var occupied = 0

    /// The number of elements.
    @inlinable public var count: Int { occupied }

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { count == 0 }

    /// The elements it can hold before it grows.
    @inlinable public var capacity: Int { slots.count }

    /// The oldest element.
    @inlinable public var first: Element? { count == 0 ? nil : slots[head] }

    /// Adds `element` at the back.
    @inlinable public mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[slot(count)] = element
        occupied += 1
    }

    /// Removes and returns the oldest element.
    @inlinable public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = head + 1 == slots.count ? 0 : head + 1
        occupied -= 1
        return element
    }

    /// Removes and returns up to `limit` elements from the front, oldest first.
    @inlinable public mutating func popFirst(upTo limit: Int) -> [Element] {
        var taken: [Element] = []
        taken.reserveCapacity(Swift.min(limit, count))
        while taken.count < limit, let element = popFirst() { taken.append(element) }
        return taken
    }

    /// Removes the oldest element that `matches`; false if there is none. O(count).
    @inlinable public mutating func removeFirst(where matches: (Element) -> Bool) -> Bool {
        guard let found = (0..<count).first(where: { matches(slots[slot($0)]!) }) else { return false }
        for offset in found..<(count - 1) { slots[slot(offset)] = slots[slot(offset + 1)] }
        slots[slot(count - 1)] = nil
        occupied -= 1
        return true
    }

    /// Removes every element, keeping the capacity.
    @inlinable public mutating func removeAll() {
        while popFirst() != nil {}
        head = 0
    }

    /// The index in `slots` of the element `offset` places from the front.
    @inlinable func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index < slots.count ? index : index - slots.count
    }

    /// Doubles the ring (at least 8 slots), moving the elements to its front in order.
    @usableFromInline mutating func grow() {
        var grown: [Element?] = []
        grown.reserveCapacity(Swift.max(8, 2 * slots.count))
        for offset in 0..<count { grown.append(slots[slot(offset)]) }
        while grown.count < grown.capacity { grown.append(nil) }
        slots = grown
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
