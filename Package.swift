// swift-tools-version:6.0
// Gatehouse: a self-hosted GraphQL auth backend. Target layout and dependency
// direction follow ../shared/STYLE.md; C libraries are Debian system libraries.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    products: [
        .executable(name: "gatehouse", targets: ["gatehouse"]),
        .library(name: "GraphQL", targets: ["GraphQL", "JSON"]),
        .library(name: "GatehouseClient", targets: ["GatehouseClient"]),
    ],
    targets: [
        // Pure Swift GraphQL engine: knows nothing of auth, HTTP or C.
        .target(name: "GraphQL", dependencies: ["JSON", "Locking"], linkerSettings: [.linkedLibrary("m")]),
        // The one JSON value, reader, writer (and its string escaping) and ISO-8601 time text.
        .target(name: "JSON"),
        // A plain pthread mutex for state every request touches (see Lock.swift for why not Mutex).
        .target(name: "Locking"),

        // C libraries (Debian -dev packages), each imported by exactly one Swift target.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        .target(name: "Postgres", dependencies: ["CLibPQ", "Locking"]),
        // Auth domain: users, sessions, policies, services per feature over a shared core (AuthService wires them), stores.
        .target(
            name: "Auth", dependencies: ["Crypto", "IPNetworks", "JSON", "Mail", "Postgres", "Providers", "Sodium", "Locking", "WebAuthn"], exclude: ["Policy/CommonPasswords"],
            plugins: ["EmbedText"]),
        .target(name: "Sodium", dependencies: ["CSodium", "CCrypt", "Locking"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "IPNetworks", "Locking"]),
        // Third-party log-in: provider configuration, key sets cached per provider, ID token checks.
        .target(name: "Providers", dependencies: ["Curl", "JSON", "JWT", "Locking"]),
        // libcurl's client side: SMTP delivery (STARTTLS, implicit TLS, AUTH) and HTTPS GETs.
        .target(name: "Curl", dependencies: ["CCurl"]),
        // JSON Web Tokens and Keys: RS256 and ES256 signatures (libcrypto), ID token claims.
        .target(name: "Crypto", dependencies: ["CCrypto"]),
        .target(name: "JWT", dependencies: ["Crypto", "JSON"]),
        // WebAuthn relying party: strict CBOR, COSE keys, authenticator and client data, the
        // registration and authentication checks (ES256/RS256 through Crypto, SHA-256 through Sodium).
        .target(name: "WebAuthn", dependencies: ["Crypto", "JSON", "Sodium"]),
        // Mail messages: templates in four languages, MIME and RFC 2047 encoding. Knows no users or databases.
        .target(name: "Mail"),
        // IPv4/IPv6 addresses and CIDR networks: the connection cap, trusted proxies, rate limits.
        .target(name: "IPNetworks"),
        .target(name: "GraphQLHTTP", dependencies: ["GraphQL", "HTTPServer", "JSON"]),
        // Resolvers binding schema.graphql to Auth; Parse codes and messages.
        .target(name: "AuthGraphQL", dependencies: ["Auth", "GraphQL", "JSON"], plugins: ["EmbedText"]),
        // Compiles schema.graphql into AuthGraphQL as `ServedSchema.sdl`, and the common-password
        // list into Auth as `CommonPasswordList.text`.
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["TextEmbedder"]),
        .executableTarget(name: "TextEmbedder", path: "Tools/TextEmbedder"),

        // Configuration, wiring, embedded database, logging, metrics, signals.
        .target(
            name: "GatehouseServer",
            dependencies: ["Auth", "AuthGraphQL", "Curl", "GraphQL", "GraphQLHTTP", "HTTPServer", "IPNetworks", "JSON", "Locking", "Mail", "Postgres", "Providers", "Sodium"]),
        // The executable: main.swift only parses the command and runs.
        .executableTarget(name: "gatehouse", dependencies: ["GatehouseServer"]),

        // Swift client SDK: Foundation (URLSession) only and no internal dependency, so it builds on Apple platforms.
        .target(name: "GatehouseClient"),
        // Command-line demo of the SDK: sign-up and log-in, password reset, email verification, account changes, devices, TOTP.
        .executableTarget(name: "gatehouse-demo", dependencies: ["GatehouseClient"]),

        // Shared test helpers (never products): TestSupport depends on nothing internal, so any
        // test target can use it; ServerTestSupport adds test databases and in-process servers.
        .target(name: "TestSupport"),
        // A software authenticator making good and deliberately bad WebAuthn responses (tests, benchmarks).
        .target(name: "WebAuthnTestSupport", dependencies: ["Crypto", "JSON", "Sodium", "WebAuthn"]),
        .target(name: "ServerTestSupport", dependencies: ["TestSupport", "Postgres", "JSON", "GatehouseServer", "HTTPServer", "Sodium"]),

        // Benchmarks: separate executables, never tests.
        .executableTarget(name: "ParseBench", dependencies: ["GraphQL"], path: "bench/ParseBench"),
        .executableTarget(name: "StaticServer", dependencies: ["HTTPServer"], path: "bench/StaticServer"),
        // Raw argon2id rate vs PasswordHashingPool; imports CSodium for the raw baseline only.
        .executableTarget(name: "HashBench", dependencies: ["Sodium", "CSodium"], path: "bench/HashBench"),
        .executableTarget(name: "TOTPBench", dependencies: ["Crypto", "Sodium"], path: "bench/TOTPBench"),
        .executableTarget(name: "PasskeyBench", dependencies: ["JSON", "TestSupport", "WebAuthnTestSupport"], path: "bench/PasskeyBench"),
        // GraphQL engine against graphql-core: conformance corpus runner and engine throughput.
        .executableTarget(name: "ConformanceRunner", dependencies: ["GraphQL", "JSON"], path: "Tools/ConformanceRunner"),
        .executableTarget(name: "EngineBench", dependencies: ["GraphQL", "JSON"], path: "bench/EngineBench"),
        .executableTarget(name: "PoolBench", dependencies: ["Postgres", "Auth"], path: "bench/PoolBench"),
        // Cost of a GATEHOUSE_PASSWORD_BLOCKLIST look-up in a 10-million-line file.
        .executableTarget(name: "BlocklistBench", dependencies: ["Auth", "Sodium", "TestSupport"], path: "bench/BlocklistBench"),

        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "GraphQLTests", dependencies: ["GraphQL", "JSON"], exclude: ["Deviations.md"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "AuthStorageTests", dependencies: ["Auth", "Locking", "Postgres", "Sodium", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "AuthGraphQL", "Crypto", "GraphQL", "JSON", "Providers", "Sodium", "Postgres", "ServerTestSupport", "TestSupport", "WebAuthn", "WebAuthnTestSupport"]),
        .testTarget(name: "SodiumTests", dependencies: ["Sodium"]),
        .testTarget(name: "JWTTests", dependencies: ["JWT", "JSON", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "WebAuthnTestSupport", "Crypto", "JSON", "Sodium", "TestSupport"]),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "Curl", "GatehouseServer", "JSON", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "MailTests", dependencies: ["Mail", "Curl", "TestSupport"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "IPNetworks", "TestSupport"]),
        .testTarget(
            name: "SessionCacheTests",
            dependencies: ["GatehouseServer", "Auth", "Postgres", "Sodium", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "SecurityTests", dependencies: ["GatehouseServer", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "GraphQLHTTPTests", dependencies: ["GraphQLHTTP", "GraphQL", "HTTPServer", "JSON"]),
        .testTarget(
            name: "GatehouseClientTests",
            dependencies: ["GatehouseClient", "GatehouseServer", "Crypto", "HTTPServer", "JSON", "Postgres", "ServerTestSupport", "TestSupport", "WebAuthnTestSupport"]),
        .testTarget(name: "BrowserTests", dependencies: ["Crypto", "GatehouseServer", "JSON", "Mail", "Postgres", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "GatehouseServerTests", dependencies: ["GatehouseServer", "Crypto", "Sodium", "GraphQLHTTP", "HTTPServer", "IPNetworks", "GraphQL", "Auth", "AuthGraphQL", "JSON", "Postgres", "ServerTestSupport", "TestSupport"]),
    ]
)
