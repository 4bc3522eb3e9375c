import Threading
import Testing

/// Elements leave in arrival order across wrap-around and growth; the ring keeps its capacity.
@Suite struct FIFOTests {
    @Test func elementsLeaveInArrivalOrder() {
        var queue = FIFO<Int>()
        #expect(queue.isEmpty && queue.first == nil && queue.popFirst() == nil)
        for i in 0..<5 { queue.append(i) }
        #expect(queue.count == 5 && queue.first == 0)
        #expect(queue.popFirst() == 0)
        #expect(queue.popFirst(upTo: 3) == [1, 2, 3])
        #expect(queue.popFirst(upTo: 10) == [4])
        #expect(queue.isEmpty)
    }

    /// Appends wrap around the end of the ring, and a full ring that has wrapped grows with
    /// its elements still in order.
    @Test func wrapsAroundAndGrowsInOrder() {
        var queue = FIFO<Int>()
        queue.append(0)
        let capacity = queue.capacity
        #expect(queue.popFirst() == 0)
        for i in 1...capacity { queue.append(i) }  // the last one wraps to the ring's start
        #expect(queue.capacity == capacity && queue.count == capacity)
        for i in (capacity + 1)..<(3 * capacity) { queue.append(i) }  // grows from a wrapped state
        #expect(queue.capacity > capacity)
        #expect(queue.popFirst(upTo: .max) == Array(1..<(3 * capacity)))
    }

    /// A steady stream through a ring that has grown does not grow it again.
    @Test func keepsItsCapacity() {
        var queue = FIFO<[Int]>()
        for i in 0..<10 { queue.append([i]) }
        let capacity = queue.capacity
        for i in 10..<10_000 {
            queue.append([i])
            #expect(queue.popFirst() == [i - 10])
        }
        queue.removeAll()
        #expect(queue.isEmpty && queue.capacity == capacity)
        queue.append([1])
        #expect(queue.first == [1])
    }

    @Test func removesTheFirstMatchFromTheMiddleOfAWrappedRing() {
        var queue = FIFO<Int>()
        queue.append(0)
        let capacity = queue.capacity
        for i in 1..<capacity { queue.append(i) }
        _ = queue.popFirst(upTo: capacity - 2)
        for i in capacity..<(capacity + 4) { queue.append(i) }  // c-2, c-1 | c, c+1, c+2, c+3 wrapped
        #expect(queue.capacity == capacity)
        #expect(queue.removeFirst { $0 == capacity })
        #expect(!queue.removeFirst { $0 == capacity })
        #expect(queue.removeFirst { $0 == capacity + 3 })
        #expect(queue.count == 4)
        #expect(queue.popFirst(upTo: .max) == [capacity - 2, capacity - 1, capacity + 1, capacity + 2])
    }

    /// Removed elements are released at once, not when their slot is reused.
    @Test func releasesRemovedElements() {
        final class Box {}
        var queue = FIFO<Box>()
        weak var popped: Box?
        weak var cleared: Box?
        do {
            let first = Box(), second = Box()
            popped = first
            cleared = second
            queue.append(first)
            queue.append(second)
        }
        _ = queue.popFirst()
        #expect(popped == nil && cleared != nil)
        queue.removeAll()
        #expect(cleared == nil)
    }
}
