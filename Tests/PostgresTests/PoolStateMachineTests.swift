import Postgres
import TestSupport
import Testing

/// The pool's decisions, driven with plain integers as connections (no database, no threads).
@Suite struct PoolStateMachineTests {
    typealias Machine = PoolStateMachine<Int>

    @Test func opensUpToCapacityThenWaits() {
        var machine = Machine(capacity: 2)
        guard case .connect = machine.checkout() else { Issue.record("expected connect"); return }
        machine.connectSucceeded()
        guard case .connect = machine.checkout() else { Issue.record("expected connect"); return }
        machine.connectSucceeded()
        guard case .wait = machine.checkout() else { Issue.record("expected wait"); return }
        #expect(machine.stats == PoolStats(capacity: 2, inUse: 2, idle: 0, connecting: 0, waiting: 1))
    }

    @Test func releaseHandsConnectionToFirstWaiterInOrder() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        machine.connectSucceeded()
        guard case .wait(let first) = machine.checkout(), case .wait(let second) = machine.checkout() else {
            Issue.record("expected two waiters"); return
        }
        guard case .wake(let woken, .use(let resource)) = machine.release(7, reusable: true) else {
            Issue.record("expected a hand-over"); return
        }
        #expect(woken == first && resource == 7)
        guard case .wake(let next, .use) = machine.release(7, reusable: true) else {
            Issue.record("expected a hand-over"); return
        }
        #expect(next == second)
        #expect(machine.release(7, reusable: true).isNone)
        #expect(machine.stats == PoolStats(capacity: 1, inUse: 0, idle: 1, connecting: 0, waiting: 0))
    }

    @Test func idleConnectionsAreReusedLastInFirstOut() {
        var machine = Machine(capacity: 3)
        for _ in 0..<2 { _ = machine.checkout(); machine.connectSucceeded() }
        _ = machine.release(1, reusable: true)
        _ = machine.release(2, reusable: true)
        guard case .use(let resource) = machine.checkout() else { Issue.record("expected reuse"); return }
        #expect(resource == 2)
    }

    @Test func brokenReleaseFreesSlotForWaiterToReconnect() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        machine.connectSucceeded()
        guard case .wait(let waiter) = machine.checkout() else { Issue.record("expected wait"); return }
        guard case .wake(let woken, .connect) = machine.release(1, reusable: false) else {
            Issue.record("expected a reconnect"); return
        }
        #expect(woken == waiter)
        #expect(machine.stats.connecting == 1 && machine.stats.inUse == 0)
        machine.connectSucceeded()
        #expect(machine.stats.inUse == 1)
    }

    @Test func brokenReleaseWithoutWaitersLeavesSlotFree() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        machine.connectSucceeded()
        #expect(machine.release(1, reusable: false).isNone)
        guard case .connect = machine.checkout() else { Issue.record("expected a new connect"); return }
    }

    @Test func failedConnectPassesTheSlotToTheNextWaiter() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        guard case .wait(let waiter) = machine.checkout() else { Issue.record("expected wait"); return }
        guard case .wake(let woken, .connect) = machine.connectFailed() else { Issue.record("expected wake"); return }
        #expect(woken == waiter)
        #expect(machine.connectFailed().isNone)
        #expect(machine.stats == PoolStats(capacity: 1, inUse: 0, idle: 0, connecting: 0, waiting: 0))
    }

    @Test func timedOutWaiterIsRemovedButAServedOneIsNot() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        machine.connectSucceeded()
        guard case .wait(let first) = machine.checkout(), case .wait(let second) = machine.checkout() else {
            Issue.record("expected two waiters"); return
        }
        let removed = machine.cancelWaiting(first)
        #expect(removed)
        #expect(machine.stats.waiting == 1)
        guard case .wake(let woken, _) = machine.release(1, reusable: true) else { Issue.record("expected wake"); return }
        #expect(woken == second)
        let removedServed = machine.cancelWaiting(second)
        #expect(!removedServed, "an already-served waiter must take its connection")
    }

    @Test func deadIdleConnectionBecomesAReservedConnect() {
        var machine = Machine(capacity: 1)
        _ = machine.checkout()
        machine.connectSucceeded()
        _ = machine.release(1, reusable: true)
        guard case .use = machine.checkout() else { Issue.record("expected reuse"); return }
        machine.replaceLeaseWithConnect()
        #expect(machine.stats == PoolStats(capacity: 1, inUse: 0, idle: 0, connecting: 1, waiting: 0))
        machine.connectSucceeded()
        #expect(machine.stats.inUse == 1)
    }

    @Test func shutDownClosesIdleWakesWaitersAndRefusesCheckouts() {
        var machine = Machine(capacity: 2)
        for _ in 0..<2 { _ = machine.checkout(); machine.connectSucceeded() }
        _ = machine.release(1, reusable: true)
        _ = machine.checkout()  // takes 1 again
        guard case .wait(let waiter) = machine.checkout() else { Issue.record("expected wait"); return }
        let (close, wake) = machine.shutDown()
        #expect(close.isEmpty)
        #expect(wake == [waiter])
        guard case .shutDown = machine.checkout() else { Issue.record("expected shutDown"); return }
        guard case .close(let resource) = machine.release(1, reusable: true) else { Issue.record("expected close"); return }
        #expect(resource == 1)
    }

    /// Many random operations keep the capacity invariant.
    @Test(arguments: [1, 2, 5])
    func invariantHoldsUnderRandomOperations(capacity: Int) {
        var machine = Machine(capacity: capacity)
        var generator = SplitMix64(seed: UInt64(capacity))
        var held: [Int] = []
        var waiting: [Machine.WaiterID] = []
        var connectsPending = 0
        var next = 0
        for _ in 0..<2000 {
            switch generator.next() % 5 {
            case 0:
                switch machine.checkout() {
                case .use(let r): held.append(r)
                case .connect: connectsPending += 1
                case .wait(let id): waiting.append(id)
                case .shutDown: Issue.record("not shut down")
                }
            case 1 where connectsPending > 0:
                connectsPending -= 1
                if generator.next() % 4 == 0 {
                    if case .wake(let id, .connect) = machine.connectFailed() {
                        waiting.removeAll { $0 == id }; connectsPending += 1
                    }
                } else {
                    machine.connectSucceeded(); next += 1; held.append(next)
                }
            case 2 where !held.isEmpty:
                let r = held.removeLast()
                let reusable = generator.next() % 3 != 0
                if case .wake(let id, let outcome) = machine.release(r, reusable: reusable) {
                    waiting.removeAll { $0 == id }
                    if case .use(let given) = outcome { held.append(given) } else { connectsPending += 1 }
                }
            case 3 where !waiting.isEmpty:
                let removed = machine.cancelWaiting(waiting.removeFirst())
                #expect(removed)
            default:
                break
            }
            let s = machine.stats
            #expect(s.inUse + s.connecting + s.idle <= capacity)
            #expect(s.inUse == held.count && s.connecting == connectsPending && s.waiting == waiting.count)
            #expect(s.waiting == 0 || s.idle == 0)
        }
    }
}

extension PoolStateMachine.FollowUp {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
