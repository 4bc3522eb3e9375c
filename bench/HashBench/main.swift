// HashBench: raw argon2id rate vs the same work through PasswordHashingPool.
// Top-level code is @MainActor (PLATFORM.md): all thread work lives in Bench.swift.
HashBench.main(Array(CommandLine.arguments.dropFirst()))
