// The benchmark proper. Not a test: it prints numbers and asserts nothing.
//
// Raw mode calls libsodium's crypto_pwhash_str directly. That is the one place outside the
// Sodium target that imports CSodium, on purpose: the baseline must not include our wrapper,
// since the wrapper and pool are what is being compared against it.
internal import CSodium
import Glibc
import Sodium
import Synchronization

enum HashBench {
    static let usage = """
        usage: HashBench <threads> <seconds> <interactive|moderate|minimum>
               HashBench --pool <clients> <seconds> <interactive|moderate|minimum> [workers] [maxWaitSeconds]
        Raw mode: <threads> threads each call crypto_pwhash_str in a loop.
        Pool mode: <clients> threads call PasswordHashingPool.hash; a client refused with .busy
        waits 1 ms and retries (refusals are counted, not hashes).
        Prints one line of key=value pairs.
        """

    static func main(_ arguments: [String]) {
        var args = arguments
        let pool = args.first == "--pool"
        if pool { args.removeFirst() }
        guard args.count >= 3, let threads = Int(args[0]), threads > 0,
              let seconds = Double(args[1]), seconds > 0,
              let cost = costs[args[2]]
        else {
            print(usage)
            exit(2)
        }
        guard sodium_init() >= 0 else { fatalError("sodium_init failed") }
        if pool {
            let workers = args.count > 3 ? Int(args[3]) : nil
            let maxWait = args.count > 4 ? Double(args[4]) : nil
            runPool(clients: threads, seconds: seconds, costName: args[2], cost: cost, workers: workers, maxWait: maxWait ?? 5)
        } else {
            runRaw(threads: threads, seconds: seconds, costName: args[2], cost: cost)
        }
    }

    static let costs: [String: PasswordHasher.Cost] = [
        "interactive": .interactive, "moderate": .moderate, "minimum": .minimum,
    ]

    static func runRaw(threads: Int, seconds: Double, costName: String, cost: PasswordHasher.Cost) {
        let hashes = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let elapsed = measure(threads: threads, seconds: seconds) { deadline in
            var out = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
            let password = Array("correct horse battery staple".utf8).map { CChar(bitPattern: $0) }
            while now() < deadline {
                if crypto_pwhash_str(&out, password, UInt64(password.count), cost.opsLimit, cost.memLimit) == 0 {
                    hashes.add(1, ordering: .relaxed)
                } else {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        let n = hashes.load(ordering: .relaxed)
        print("mode=raw threads=\(threads) cost=\(costName) seconds=\(fmt(elapsed)) hashes=\(n) failures=\(failures.load(ordering: .relaxed)) rate=\(fmt(Double(n) / elapsed)) \(cpuFields(hashes: n))")
    }

    static func runPool(clients: Int, seconds: Double, costName: String, cost: PasswordHasher.Cost, workers: Int?, maxWait: Double) {
        let hasher: PasswordHasher
        do { hasher = try PasswordHasher(cost: cost) } catch { fatalError("\(error)") }
        let pool = PasswordHashingPool(hasher: hasher, workers: workers, maxWait: maxWait)
        let hashes = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let elapsed = measure(threads: clients, seconds: seconds) { deadline in
            while now() < deadline {
                do {
                    _ = try pool.hash("correct horse battery staple")
                    hashes.add(1, ordering: .relaxed)
                } catch HashingPoolError.busy {
                    var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                    nanosleep(&pause, nil)
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        let metrics = pool.metrics
        pool.shutdown()
        let n = hashes.load(ordering: .relaxed)
        print("mode=pool clients=\(clients) workers=\(metrics.workers) max_wait=\(metrics.maxWait) cost=\(costName) seconds=\(fmt(elapsed)) hashes=\(n) failures=\(failures.load(ordering: .relaxed)) rejected=\(metrics.rejected) rate=\(fmt(Double(n) / elapsed)) \(cpuFields(hashes: n))")
    }

    /// Runs `body(deadline)` on `threads` threads; elapsed time runs from the start until the
    /// last thread has finished its last hash (so both modes count the same overhang).
    static func measure(threads: Int, seconds: Double, _ body: @escaping @Sendable (Double) -> Void) -> Double {
        let start = now()
        cpuAtStart.withLock { $0 = cpuSeconds() }
        let deadline = start + seconds
        let handles = (0..<threads).map { _ in spawn { body(deadline) } }
        for handle in handles { pthread_join(handle, nil) }
        return now() - start
    }

    /// Process CPU time (user + system) when the last `measure` started.
    static let cpuAtStart = Mutex(0.0)

    /// `cpu=<seconds> per_cpu_s=<hashes per CPU second>`: robust against other load on the machine.
    static func cpuFields(hashes: Int) -> String {
        let cpu = cpuSeconds() - cpuAtStart.withLock { $0 }
        return "cpu=\(fmt(cpu)) per_cpu_s=\(fmt(Double(hashes) / cpu))"
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func fmt(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return "\(scaled)"
    }

    final class BodyBox {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(BodyBox(body)).toOpaque()
        let result = pthread_create(&handle, nil, benchThreadEntry, context)
        precondition(result == 0, "pthread_create failed")
        return handle
    }
}

/// A plain non-isolated C entry point; the context is released exactly once here.
private func benchThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let body = Unmanaged<HashBench.BodyBox>.fromOpaque(context!).takeRetainedValue()
    body.run()
    return nil
}
