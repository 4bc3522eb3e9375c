import Synchronization

/// A reference published at most once, without a lock: the first ``storeIfNil(_:)`` wins and
/// every later reader sees its object. Holds one count on the object; `deinit` releases it.
///
/// `Synchronization.AtomicLazyReference` does the same, but its methods are not inlinable: each
/// call went through unspecialised generic code that looks type metadata up at run time, too slow
/// for the engine's plan lookups. This one is inlinable, so each use is specialised.
public struct PublishedOnce<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The object's address, retained once (0 until published).
    @usableFromInline let bits: Atomic<UInt>

    // The initial value and the deinit are inlinable too: a stored property's initial value
    // expression and a plain deinit are calls into this module, the deinit an unspecialised one.
    @inlinable public init() { bits = Atomic(0) }

    @inlinable deinit {
        let bits = bits.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The published object, if any.
    @inlinable public func load() -> Instance? {
        let bits = bits.load(ordering: .acquiring)
        return bits == 0 ? nil : Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Publishes `desired` unless an object is published already; returns the published one.
    @inlinable public func storeIfNil(_ desired: Instance) -> Instance {
        let retained = Unmanaged.passRetained(desired)
        let (exchanged, current) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
            successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
        if exchanged { return desired }
        retained.release()
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }
}
