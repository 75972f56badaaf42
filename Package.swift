// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Chronicle",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "Chronicle", targets: ["Chronicle"]),
    .executable(name: "chronicle", targets: ["chronicle"]),
    .executable(name: "chronicle-bench", targets: ["chronicle-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
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
    .target(
      name: "Chronicle",
      dependencies: [
        "CZlib",
        "CChronicleSQLite",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .executableTarget(
      name: "chronicle",
      dependencies: [
        "Chronicle",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/chronicle"
    ),
    .executableTarget(
      name: "chronicle-bench",
      dependencies: [
        "Chronicle",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tools/chronicle-bench"
    ),
    .testTarget(
      name: "ChronicleTests",
      dependencies: ["Chronicle"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
