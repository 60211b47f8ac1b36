// swift-tools-version: 6.2
import PackageDescription

// Every target builds in Swift 6 language mode with strict concurrency.
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "custodian",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "auth", targets: ["auth"]),
        .executable(name: "vault", targets: ["vault"]),
        .executable(name: "routes", targets: ["routes"]),
        .executable(name: "devices", targets: ["devices"]),
        .executable(name: "statistics", targets: ["statistics"]),
        .executable(name: "links", targets: ["links"]),
        .executable(name: "custodian", targets: ["custodian"]),
        // All of the above in one executable that runs the one it is called as (the container image's).
        .executable(name: "multicall", targets: ["multicall"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.36.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // Spans (the API), their export over OTLP/HTTP (no gRPC: one transport is enough, and it builds faster), and
        // the W3C `traceparent` header.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
    ],
    targets: [
        // MARK: Shared libraries
        // JSON text to and from `JSONValue` trees, and typed values to and from trees: the codec every frame goes through.
        .target(name: "CustodianJSON", dependencies: [], path: "Shared/CustodianJSON", swiftSettings: settings),
        // The RPC transport: frames, client, server, dispatcher, connections, pools, TLS, name resolution.
        .target(
            name: "CustodianRPC",
            dependencies: [
                "CustodianJSON",
                // Mutual TLS for RPC over TCP, and the names in peers' certificates.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // A span per call on both ends, and the caller's context in the call's.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/CustodianRPC",
            swiftSettings: settings
        ),
        // What the gateway and the services pass for an HTTP request: the request (`HTTPInput`), a raw reply, a streamed page.
        .target(
            name: "CustodianHTTP",
            dependencies: ["CustodianJSON", "CustodianRPC", .product(name: "NIOCore", package: "swift-nio")],
            path: "Shared/CustodianHTTP",
            swiftSettings: settings
        ),
        // HTML escaping and the web URLs clients give, for the pages and links the gateway and services make.
        .target(name: "CustodianWeb", dependencies: [], path: "Shared/CustodianWeb", swiftSettings: settings),
        // Each service's methods as typed descriptors, with the inputs and results that cross services: for a routed
        // method, the typed input read from the request in its API's words, and the typed result.
        .target(
            name: "CustodianContracts",
            dependencies: [
                "CustodianJSON", "CustodianRPC", "CustodianHTTP",
                // What the typed inputs check as they are read: an upload's digest, an OpenSense file's MD5, a web URL.
                "CustodianSecurity", "CustodianWeb", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Shared/CustodianContracts",
            swiftSettings: settings
        ),
        .target(
            name: "CustodianSecurity",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ],
            path: "Shared/CustodianSecurity",
            swiftSettings: settings
        ),
        .systemLibrary(
            name: "CSodium",
            path: "Shared/CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(
            name: "CustodianSodium",
            dependencies: ["CSodium"],
            path: "Shared/CustodianSodium",
            swiftSettings: settings
        ),
        // The data vault's record format (docs/vault.md, "Record format"): what an app seals and the vault's owner opens.
        .target(
            name: "CustodianVault",
            dependencies: ["CustodianSodium", .product(name: "Crypto", package: "swift-crypto")],
            path: "Shared/CustodianVault",
            swiftSettings: settings
        ),
        // `custodian loadgen`: the platform's real flows through its client libraries, HdrHistogram latencies,
        // and the read-back of every acknowledged write.
        .target(
            name: "CustodianLoad",
            dependencies: [
                "CustodianLemon", "LemonClient", "CustodianGeotag", "GeotagClient", "CustodianVault", "CustodianSecurity", "CustodianRPC",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The trace ids of the slowest requests, read from each answer's `traceparent`.
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            path: "Shared/CustodianLoad",
            swiftSettings: settings
        ),
        .target(
            name: "CustodianJWT",
            dependencies: ["CustodianContracts", .product(name: "JWTKit", package: "jwt-kit")],
            path: "Shared/CustodianJWT",
            swiftSettings: settings
        ),
        // The geotag wire formats (docs/geotag.md): signed requests, the route nonce, QR text and lookup id,
        // the tracks JSON. The routes service checks signatures with the same code.
        .target(
            name: "CustodianGeotag",
            dependencies: ["CustodianSecurity", .product(name: "Crypto", package: "swift-crypto")],
            path: "Shared/CustodianGeotag",
            swiftSettings: settings
        ),
        // What only clients do: seal and open routes (libsodium), read GPX files (FoundationXML), signed requests
        // to the route store (AsyncHTTPClient).
        .target(
            name: "GeotagClient",
            dependencies: ["CustodianGeotag", "CustodianSecurity", "CSodium", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            path: "Shared/GeotagClient",
            swiftSettings: settings
        ),
        // The tracing app's wire formats (docs/lemon.md): handshake signatures, session keys, sealed payloads, the
        // server's key file. `auth` and the gateway use them, and so does the client.
        .target(
            name: "CustodianLemon",
            dependencies: [
                "CustodianContracts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Shared/CustodianLemon",
            swiftSettings: settings
        ),
        // The app's side over HTTP, for the command line, the tests and the load generator.
        .target(
            name: "LemonClient",
            dependencies: ["CustodianLemon", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            path: "Shared/LemonClient",
            swiftSettings: settings
        ),
        // The photographer's desktop tool (`custodian geotag`): QR photo detection (libzbar on pixels decoded by
        // TurboJPEG), camera clock correction, route interpolation, and an Exif GPS writer of its own.
        .systemLibrary(
            name: "CZbar",
            path: "Shared/CZbar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        .systemLibrary(
            name: "CTurboJPEG",
            path: "Shared/CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .target(
            name: "GeotagTool",
            dependencies: ["CustodianGeotag", "GeotagClient", "CZbar", "CTurboJPEG"],
            path: "Shared/GeotagTool",
            swiftSettings: settings
        ),
        // Each process's tracer: OTLP export when a collector is named, the sampling ratio, dropped spans counted.
        .target(
            name: "CustodianTracing",
            dependencies: [
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/CustodianTracing",
            swiftSettings: settings
        ),
        .target(
            name: "CustodianProcess",
            dependencies: [
                "CustodianRPC",
                "CustodianTracing",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/CustodianProcess",
            swiftSettings: settings
        ),
        .target(
            name: "CustodianRuntime",
            dependencies: [
                "CustodianRPC",
                "CustodianContracts",
                "CustodianProcess",
                // The deployment's sealer, for `system.sealing` over the columns a service declares sealed.
                "CustodianSecurity",
                // `system.tracing`: whether the replica exports spans and how many it dropped.
                "CustodianTracing",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The pool's own errors (a tripped circuit breaker) are answered 503 like the others.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // A span per SQL statement.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/CustodianRuntime",
            swiftSettings: settings
        ),
        // A private PostgreSQL cluster made with the installed binaries: `custodian up`'s, and the tests'.
        .target(
            name: "CustodianLocalPostgres",
            dependencies: ["CustodianRuntime", "CustodianSecurity"],
            path: "Shared/CustodianLocalPostgres",
            swiftSettings: settings
        ),

        // MARK: Services (a library with the domain code, an executable that runs it)
        .target(
            name: "GatewayKit",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianWeb", "CustodianRPC",
                "CustodianContracts",
                "CustodianProcess",
                // The request's span, and its `traceparent` in the answer.
                "CustodianTracing",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                "CustodianJWT", "CustodianLemon", "CustodianSecurity",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The researcher console's pages.
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // docs/openapi.yaml, read once to serve it as /openapi.json.
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Services/gateway/GatewayKit",
            // docs/openapi.yaml through a symlink (SwiftPM takes resources only from the target's folder), and the
            // console's page templates, compiled into the gateway so that the executable needs no resource bundle beside it.
            resources: [.embedInCode("OpenAPI/openapi.yaml"), .embedInCode("Console/Templates")],
            swiftSettings: settings
        ),
        .executableTarget(name: "gateway", dependencies: ["GatewayKit"], path: "Services/gateway/Main", swiftSettings: settings),

        // The tamper-evident audit log of admin actions: its schema and grants, the hash chain, its check.
        .target(
            name: "CustodianAudit",
            dependencies: [
                "CustodianContracts", "CustodianRuntime", "CustodianSecurity",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Shared/CustodianAudit",
            swiftSettings: settings
        ),
        .target(
            name: "AuthService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianRPC", "CustodianContracts", "CustodianRuntime", "CustodianSecurity", "CustodianJWT",
                "CustodianSodium", "CustodianLemon",
                "CustodianAudit",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/auth/AuthService",
            swiftSettings: settings
        ),
        .executableTarget(name: "auth", dependencies: ["AuthService"], path: "Services/auth/Main", swiftSettings: settings),

        .target(
            name: "DevicesService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianWeb", "CustodianRPC", "CustodianContracts", "CustodianRuntime", "CustodianSecurity",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/devices/DevicesService",
            swiftSettings: settings
        ),
        .executableTarget(name: "devices", dependencies: ["DevicesService"], path: "Services/devices/Main", swiftSettings: settings),

        // libqrencode, through pkg-config; the links service draws its QR codes with it.
        .systemLibrary(
            name: "CQRencode",
            path: "Shared/CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // libpng, through pkg-config; its simplified API writes the QR codes' PNG images.
        .systemLibrary(
            name: "CPNG",
            path: "Shared/CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        // QR symbols (libqrencode) and their PNG (libpng) and terminal drawings: the links service's images and the
        // codes `custodian route upload` shows.
        .target(name: "CustodianQR", dependencies: ["CQRencode", "CPNG"], path: "Shared/CustodianQR", swiftSettings: settings),
        .target(
            name: "LinksService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianWeb", "CustodianRPC", "CustodianContracts", "CustodianRuntime", "CustodianSecurity",
                "CustodianQR",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Services/links/LinksService",
            swiftSettings: settings
        ),
        .executableTarget(name: "links", dependencies: ["LinksService"], path: "Services/links/Main", swiftSettings: settings),

        .target(
            name: "RoutesService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianRPC", "CustodianContracts", "CustodianRuntime", "CustodianSecurity", "CustodianGeotag",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/routes/RoutesService",
            swiftSettings: settings
        ),
        .executableTarget(name: "routes", dependencies: ["RoutesService"], path: "Services/routes/Main", swiftSettings: settings),

        // Domains that later issues fill in: they already run, migrate their schema and answer system.*.
        .target(
            name: "VaultService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianWeb", "CustodianRPC", "CustodianContracts", "CustodianRuntime", "CustodianSecurity",
                "CustodianSodium", "CustodianVault",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/vault/VaultService",
            swiftSettings: settings
        ),
        .executableTarget(name: "vault", dependencies: ["VaultService"], path: "Services/vault/Main", swiftSettings: settings),

        // The LEMON tracing app's statistics (docs/lemon.md).
        .target(
            name: "StatisticsService",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianWeb", "CustodianRPC", "CustodianContracts", "CustodianRuntime",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/statistics/StatisticsService",
            swiftSettings: settings
        ),
        .executableTarget(name: "statistics", dependencies: ["StatisticsService"], path: "Services/statistics/Main", swiftSettings: settings),

        // MARK: Command line
        // Every command of `custodian` (up, restart, setup, admin, stats, the clients, loadgen, bench) in a library by job,
        // so that they can be unit-tested (CustodianCommandsTests); the executable only calls its root command.
        .target(
            name: "CustodianCommands",
            dependencies: [
                "CustodianJSON", "CustodianContracts", "CustodianRuntime", "CustodianLocalPostgres", "CustodianSecurity", "AuthService",
                "CustodianAudit", "CustodianVault", "CustodianSodium", "RoutesService", "CustodianGeotag", "GeotagClient",
                // custodian restore reads the migrations of every service, to refuse a backup of a newer schema.
                "DevicesService", "VaultService", "StatisticsService", "LinksService",
                "CustodianLoad",
                "CustodianLemon", "LemonClient", "GeotagTool", "CustodianQR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // `custodian bench`: a bare Hummingbird app for the split tax, COPY for the batch writes.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Services/custodian/CustodianCommands",
            swiftSettings: settings
        ),
        .executableTarget(name: "custodian", dependencies: ["CustodianCommands"], path: "Services/custodian/Main", swiftSettings: settings),
        // The container image's one executable: each of the above by the name it is called as (Deploy/Dockerfile).
        .executableTarget(
            name: "multicall",
            dependencies: [
                "CustodianCommands", "CustodianRuntime", "GatewayKit",
                "AuthService", "VaultService", "RoutesService", "DevicesService", "StatisticsService", "LinksService",
            ],
            path: "Services/multicall/Main",
            swiftSettings: settings
        ),

        // MARK: Tests
        // Runs services' definitions in the test process against a private PostgreSQL, without the gateway.
        .target(
            name: "ServiceTestSupport",
            dependencies: [
                "CustodianRPC", "CustodianHTTP", "CustodianContracts", "CustodianRuntime", "CustodianLocalPostgres", "CustodianAudit",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/ServiceTestSupport",
            swiftSettings: settings
        ),
        // Running a program from a test without holding one of the threads every test shares.
        .target(name: "ProcessTestSupport", dependencies: [], path: "Tests/ProcessTestSupport", swiftSettings: settings),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "ServiceTestSupport", "AuthService", "VaultService", "StatisticsService", "CustodianContracts",
                "CustodianRPC", "CustodianLemon", "LemonClient",
                "CustodianAudit", "CustodianRuntime", "CustodianSecurity",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/AuthTests"
        ),
        .testTarget(name: "CustodianJSONTests", dependencies: ["CustodianJSON"], path: "Tests/CustodianJSONTests"),
        .testTarget(
            name: "CustodianHTTPTests",
            dependencies: ["CustodianHTTP", "CustodianJSON", "CustodianRPC", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/CustodianHTTPTests"
        ),
        .testTarget(name: "CustodianWebTests", dependencies: ["CustodianWeb"], path: "Tests/CustodianWebTests"),
        .testTarget(
            name: "CustodianRPCTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianRPC", .product(name: "NIOEmbedded", package: "swift-nio"),
                // The CA rotation's steps (`custodian rotate rpc-ca`) tried on real mutual-TLS connections.
                "CustodianCommands",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/CustodianRPCTests"
        ),
        .testTarget(
            name: "RuntimeTests",
            dependencies: [
                "CustodianRuntime", "CustodianSecurity", "CustodianRPC", "CustodianContracts", "LinksService", "ServiceTestSupport",
                "CustodianTracing",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/RuntimeTests"
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "VaultService", "LinksService", "CustodianVault", "CustodianSodium", "ServiceTestSupport",
                "CustodianContracts", "CustodianRPC",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/VaultTests"
        ),
        .testTarget(
            name: "DevicesTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "DevicesService", "LinksService", "ServiceTestSupport", "CustodianContracts", "CustodianRPC",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/DevicesTests"
        ),
        .testTarget(
            name: "LinksTests",
            dependencies: [
                "CustodianContracts", "LinksService", "CustodianQR", "CPNG", "CustodianRPC", "CustodianRuntime", "ServiceTestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/LinksTests"
        ),
        .testTarget(
            name: "RoutesTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianContracts", "RoutesService", "CustodianGeotag", "GeotagClient", "CustodianRPC",
                "ServiceTestSupport",
            ],
            path: "Tests/RoutesTests"
        ),
        .testTarget(
            name: "StatisticsTests",
            dependencies: ["CustodianJSON", "StatisticsService", "CustodianRPC", "CustodianContracts", "CustodianHTTP", "ServiceTestSupport"],
            path: "Tests/StatisticsTests"
        ),
        .testTarget(
            name: "GeotagToolTests",
            dependencies: ["GeotagTool", "CustodianGeotag", "LinksService"],
            path: "Tests/GeotagToolTests"
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "GatewayKit", "CustodianContracts", "CustodianProcess", "CustodianRPC", "CustodianJWT",
                "ProcessTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Tests/GatewayTests"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "CustodianJSON", "CustodianHTTP", "CustodianContracts", "CustodianRuntime", "CustodianRPC", "CustodianSecurity", "LinksService",
                "CustodianGeotag", "GeotagClient", "CustodianLemon", "LemonClient", "GeotagTool",
                "CustodianQR", "CustodianAudit", "ProcessTestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/IntegrationTests"
        ),
        // Builds every service's method table and checks it against the gateway's route table.
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "GatewayKit", "CustodianContracts", "CustodianRPC", "CustodianRuntime", "CustodianLemon",
                "AuthService", "DevicesService", "LinksService", "RoutesService", "StatisticsService", "VaultService",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/ContractTests"
        ),
        .testTarget(
            name: "LoadGeneratorTests",
            dependencies: ["CustodianLoad"],
            path: "Tests/LoadGeneratorTests"
        ),
        .testTarget(
            name: "LemonTests",
            dependencies: ["CustodianLemon", "LemonClient", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/LemonTests"
        ),
        // The command line's options, refusals and files, without a platform running (IntegrationTests run the binary).
        .testTarget(
            name: "CustodianCommandsTests",
            dependencies: [
                "CustodianCommands", "CustodianRuntime", "CustodianLoad", "CustodianLemon", "LemonClient", "GeotagTool",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/CustodianCommandsTests"
        ),
        .testTarget(
            name: "DeployTests",
            dependencies: ["CustodianRuntime", "ProcessTestSupport", .product(name: "Yams", package: "Yams")],
            path: "Tests/DeployTests"
        ),
    ]
)
