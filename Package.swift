// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "Chronicle",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "Chronicle", targets: ["Chronicle"]),
    .library(name: "ChronicleQuery", targets: ["ChronicleQuery"]),
    .library(name: "ChronicleQueryTestSupport", targets: ["ChronicleQueryTestSupport"]),
    .library(name: "ChronicleNetwork", targets: ["ChronicleNetwork"]),
    .library(name: "ChronicleRelay", targets: ["ChronicleRelay"]),
    .executable(name: "chronicle", targets: ["chronicle"]),
    .executable(name: "chronicle-bench", targets: ["chronicle-bench"]),
    .executable(name: "filesync", targets: ["filesync"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
  ],
  targets: [
    .systemLibrary(
      name: "CZlib",
      path: "Sources/CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    .target(
      name: "CChronicleSQLite",
      linkerSettings: [.linkedLibrary("sqlite3")]
    ),
    .target(name: "ChronicleNaming"),
    .macro(
      name: "ChronicleQueryMacros",
      dependencies: [
        "ChronicleNaming",
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
      ]
    ),
    .target(
      name: "ChronicleQuery",
      dependencies: [
        "ChronicleNaming",
        "ChronicleQueryMacros",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    .target(
      name: "Chronicle",
      dependencies: [
        "ChronicleQuery",
        "CZlib",
        "CChronicleSQLite",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .target(
      name: "ChronicleNetwork",
      dependencies: [
        "Chronicle",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "WSClient", package: "swift-websocket"),
        .product(name: "WSCore", package: "swift-websocket"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .target(
      name: "ChronicleRelay",
      dependencies: [
        "Chronicle",
        "ChronicleNetwork",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "chronicle",
      dependencies: [
        "Chronicle",
        "ChronicleNetwork",
        "ChronicleRelay",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/chronicle"
    ),
    .executableTarget(
      name: "chronicle-bench",
      dependencies: [
        "Chronicle",
        "ChronicleNetwork",
        "ChronicleTestSupport",
        "FileSync",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Tools/chronicle-bench"
    ),
    .target(
      name: "FileSync",
      dependencies: [
        "Chronicle",
        "ChronicleNetwork",
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Tools/filesync/FileSync"
    ),
    .executableTarget(
      name: "filesync",
      dependencies: [
        "FileSync",
        "ChronicleNetwork",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/filesync/Command"
    ),
    .target(
      name: "ChronicleQueryTestSupport",
      dependencies: [
        "Chronicle",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing"),
      ]
    ),
    .target(
      name: "ChronicleTestSupport",
      path: "Tests/ChronicleTestSupport"
    ),
    .testTarget(
      name: "ChronicleTests",
      dependencies: [
        "Chronicle",
        "ChronicleTestSupport",
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing"),
      ]
    ),
    .testTarget(
      name: "ChronicleNetworkTests",
      dependencies: [
        "Chronicle",
        "ChronicleTestSupport",
        "ChronicleNetwork",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .testTarget(
      name: "ChronicleRelayTests",
      dependencies: [
        "Chronicle",
        "ChronicleNetwork",
        "ChronicleRelay",
        "ChronicleTestSupport",
        "chronicle",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "WSClient", package: "swift-websocket"),
        .product(name: "WSCore", package: "swift-websocket"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ]
    ),
    .testTarget(
      name: "FileSyncTests",
      dependencies: ["FileSync", "ChronicleTestSupport", "ChronicleNetwork", "filesync"]
    ),
    .testTarget(
      name: "ChronicleToolTests",
      dependencies: ["Chronicle", "ChronicleTestSupport", "chronicle"]
    ),
    .testTarget(
      name: "ChronicleQueryTests",
      dependencies: [
        "Chronicle",
        "ChronicleQuery",
        "ChronicleQueryTestSupport",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing"),
      ]
    ),
    .testTarget(
      name: "ChronicleQueryMacrosTests",
      dependencies: [
        "ChronicleQueryMacros",
        "ChronicleNaming",
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
