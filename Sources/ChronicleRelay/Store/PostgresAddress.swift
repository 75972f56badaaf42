import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL connection URL, read as libpq reads it:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…]`,
/// or `postgres://USER@/DATABASE?host=/socket/directory` for a Unix socket.
struct PostgresAddress {
  enum Endpoint {
    case tcp(host: String, port: Int)
    case socket(path: String)
  }

  var endpoint: Endpoint
  var user: String
  var password: String?
  var database: String?
  var security: TransportSecurity

  init(_ url: String) throws {
    guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "") else {
      throw RelayStoreError.invalidURL(url, reason: "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
    }
    user = components.user ?? "postgres"
    password = components.password
    database = components.path.split(separator: "/").first.map(String.init)
    security = try TransportSecurity(components.queryItems ?? [], url: url)
    if let directory = components.queryItems?.first(where: { $0.name == "host" })?.value, directory.hasPrefix("/") {
      guard security.acceptsPlainConnections else {
        throw RelayStoreError.invalidURL(
          url, reason: "sslmode=\(security.mode.rawValue) applies to TCP connections, and a Unix socket is local: drop sslmode, or give a host")
      }
      endpoint = .socket(path: "\(directory)/.s.PGSQL.\(components.port ?? 5432)")
    } else {
      guard let host = components.host, !host.isEmpty else { throw RelayStoreError.invalidURL(url, reason: "no host (or ?host=/socket/directory)") }
      endpoint = .tcp(host: host, port: components.port ?? 5432)
    }
  }

  /// The server, as errors name it (never the user or password).
  var serverName: String {
    switch endpoint {
    case .tcp(let host, let port): "\(host):\(port)"
    case .socket(let path): path
    }
  }

  /// The settings of the relay's connection pool.
  var clientConfiguration: PostgresClient.Configuration {
    var configuration: PostgresClient.Configuration
    switch endpoint {
    case .tcp(let host, let port):
      configuration = PostgresClient.Configuration(
        host: host, port: port, username: user, password: password, database: database, tls: security.clientTLS)
    case .socket(let path):
      configuration = PostgresClient.Configuration(unixSocketPath: path, username: user, password: password, database: database)
    }
    configuration.options.minimumConnections = 0
    configuration.options.maximumConnections = 16
    return configuration
  }

  /// The settings of one connection, as the pool's.
  func connectionConfiguration() throws -> PostgresConnection.Configuration {
    switch endpoint {
    case .tcp(let host, let port):
      PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: try security.connectionTLS())
    case .socket(let path):
      PostgresConnection.Configuration(unixSocketPath: path, username: user, password: password, database: database)
    }
  }
}
