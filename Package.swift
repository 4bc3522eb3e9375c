// swift-tools-version:6.0
// Gatehouse: a self-hosted GraphQL auth backend. Targets by role, each depending only on
// lower ones (docs/development.md, "Architecture"); each C library is a Debian system
// library wrapped by one Swift target.
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
        .target(name: "GraphQL", dependencies: ["JSON", "Threading"], linkerSettings: [.linkedLibrary("m")]),
        // The one JSON value, reader, writer (and its string escaping) and ISO-8601 time text.
        .target(name: "JSON"),
        // A plain pthread mutex for state every request touches (see Lock.swift for why not Mutex).
        .target(name: "Threading"),

        // C libraries (Debian -dev packages), each imported by exactly one Swift target.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        .target(name: "Postgres", dependencies: ["CLibPQ", "Threading"]),
        // Auth domain: users, sessions, policies, services per feature over a shared core (AuthService wires them), stores.
        .target(
            name: "Auth", dependencies: ["OneTimeCodes", "Signatures", "IPNetworks", "JSON", "JWT", "Mail", "Postgres", "Providers", "Sodium", "Threading", "WebAuthn"], exclude: ["Policy/CommonPasswords"],
            plugins: ["EmbedText"]),
        .target(name: "Sodium", dependencies: ["CSodium", "CCrypt", "Signatures", "Threading"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "IPNetworks", "Threading"]),
        // Third-party log-in: provider configuration, key sets cached per provider, ID token checks.
        .target(name: "Providers", dependencies: ["Curl", "JSON", "JWT", "Threading"]),
        // libcurl's client side: SMTP delivery (STARTTLS, implicit TLS, AUTH) and HTTPS GETs.
        .target(name: "Curl", dependencies: ["CCurl"]),
        // JSON Web Tokens and Keys: RS256 and ES256 signatures made and verified (libcrypto), ID token claims.
        // libcrypto's one importer: public and private keys (RS256, ES256), HMAC, SHA-1.
        .target(name: "Signatures", dependencies: ["CCrypto"]),
        // Time-based one-time passwords (RFC 6238) and their Base32 secrets, over Signatures' HMAC.
        .target(name: "OneTimeCodes", dependencies: ["Signatures"]),
        .target(name: "JWT", dependencies: ["Signatures", "JSON"]),
        // WebAuthn relying party: strict CBOR, COSE keys, authenticator and client data, the
        // registration and authentication checks (ES256/RS256 through Signatures, SHA-256 through Sodium).
        .target(name: "WebAuthn", dependencies: ["Signatures", "JSON", "Sodium"]),
        // Mail messages: templates in four languages (the HTML part's markup in HTML/), MIME and RFC 2047
        // encoding. Knows no users or databases.
        .target(name: "Mail", exclude: ["HTML"], plugins: ["EmbedText"]),
        // IPv4/IPv6 addresses and CIDR networks: the connection cap, trusted proxies, rate limits.
        .target(name: "IPNetworks"),
        .target(name: "GraphQLHTTP", dependencies: ["GraphQL", "HTTPServer", "JSON"]),
        // Resolvers binding schema.graphql to Auth; Parse codes and messages.
        .target(name: "AuthGraphQL", dependencies: ["Auth", "GraphQL", "JSON"], plugins: ["EmbedText"]),
        // Compiles text files into targets as Swift strings: schema.graphql into AuthGraphQL as
        // `ServedSchema.sdl`, the common-password list into Auth as `CommonPasswordList.text`, the
        // mail's HTML into Mail as `MailHTML`, the pages folder into GatehouseServer as `PageFiles`
        // (Plugins/EmbedText/plugin.swift lists them).
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["TextEmbedder"]),
        .executableTarget(name: "TextEmbedder", path: "Tools/TextEmbedder"),

        // Configuration, wiring, embedded database, logging, metrics, signals, and the browser
        // pages, whose HTML, CSS, JavaScript and texts are files in Pages/, compiled in.
        .target(
            name: "GatehouseServer",
            dependencies: ["Auth", "AuthGraphQL", "Curl", "GraphQL", "GraphQLHTTP", "HTTPServer", "IPNetworks", "JSON", "JWT", "Threading", "Mail", "Postgres", "Providers", "Signatures", "Sodium"],
            exclude: ["Pages"], plugins: ["EmbedText"]),
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
        .target(name: "WebAuthnTestSupport", dependencies: ["Signatures", "JSON", "Sodium", "WebAuthn"]),
        .target(name: "ServerTestSupport", dependencies: ["TestSupport", "Postgres", "JSON", "GatehouseServer", "HTTPServer", "Sodium"]),

        // Benchmarks: separate executables, never tests.
        .executableTarget(name: "ParseBench", dependencies: ["GraphQL"], path: "bench/ParseBench"),
        .executableTarget(name: "StaticServer", dependencies: ["HTTPServer"], path: "bench/StaticServer"),
        // Raw argon2id rate vs PasswordHashingPool; imports CSodium for the raw baseline only.
        .executableTarget(name: "HashBench", dependencies: ["Sodium", "CSodium"], path: "bench/HashBench"),
        .executableTarget(name: "TOTPBench", dependencies: ["OneTimeCodes", "Signatures", "Sodium"], path: "bench/TOTPBench"),
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
        .testTarget(name: "AuthStorageTests", dependencies: ["Auth", "Threading", "Postgres", "Signatures", "Sodium", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "AuthGraphQL", "OneTimeCodes", "Signatures", "GraphQL", "JSON", "JWT", "Mail", "Providers", "Sodium", "Postgres", "ServerTestSupport", "TestSupport", "WebAuthn", "WebAuthnTestSupport"]),
        .testTarget(name: "SodiumTests", dependencies: ["Sodium", "Signatures"]),
        .testTarget(name: "JWTTests", dependencies: ["JWT", "JSON", "TestSupport"]),
        .testTarget(name: "SignaturesTests", dependencies: ["Signatures", "TestSupport"]),
        .testTarget(name: "OneTimeCodesTests", dependencies: ["OneTimeCodes", "TestSupport"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "WebAuthnTestSupport", "Signatures", "JSON", "Sodium", "TestSupport"]),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "Curl", "GatehouseServer", "JSON", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "MailTests", dependencies: ["Mail", "Curl", "TestSupport"]),
        .testTarget(name: "ThreadingTests", dependencies: ["Threading"]),
        .testTarget(name: "EmbedTextTests", exclude: ["Fixtures"], plugins: ["EmbedText"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "IPNetworks", "TestSupport"]),
        .testTarget(
            name: "SessionCacheTests",
            dependencies: ["GatehouseServer", "Auth", "Postgres", "Signatures", "Sodium", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "SecurityTests", dependencies: ["GatehouseServer", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "GraphQLHTTPTests", dependencies: ["GraphQLHTTP", "GraphQL", "HTTPServer", "JSON"]),
        .testTarget(
            name: "GatehouseClientTests",
            dependencies: ["GatehouseClient", "GatehouseServer", "OneTimeCodes", "HTTPServer", "JSON", "Postgres", "ServerTestSupport", "TestSupport", "WebAuthnTestSupport"]),
        .testTarget(name: "BrowserTests", dependencies: ["OneTimeCodes", "GatehouseServer", "Signatures", "JSON", "Mail", "Postgres", "ServerTestSupport", "TestSupport"]),
        .testTarget(name: "GatehouseServerTests", dependencies: ["GatehouseServer", "OneTimeCodes", "Signatures", "Sodium", "GraphQLHTTP", "HTTPServer", "IPNetworks", "GraphQL", "Auth", "AuthGraphQL", "JSON", "JWT", "Postgres", "ServerTestSupport", "TestSupport"]),
    ]
)
