import Foundation

/// A throwaway PostgreSQL cluster for one test: `initdb` in a temporary
/// folder, served on a free loopback port, removed at the end. PostgreSQL
/// refuses to run as root, so as root the cluster belongs to the `postgres`
/// user (Debian's `postgresql` package creates it) and its tools run through
/// `runuser`.
public final class TemporaryPostgres: @unchecked Sendable {
  public let folder: URL
  public let port: Int
  private let binaries: URL
  private let owner: String?

  /// The address a relay connects with.
  public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Whether the server speaks TLS (and refuses TCP connections without it).
  public let tls: Bool

  /// The certificate authority that signed the server's certificate (for
  /// 127.0.0.1 and localhost), when it speaks TLS.
  public var certificateAuthority: String { folder.appendingPathComponent("ca.crt").path }

  /// - Parameter tls: serve TLS only, with a certificate signed by
  ///   ``certificateAuthority``.
  public init(tls: Bool = false) throws {
    self.tls = tls
    binaries = try Self.findBinaries()
    owner = geteuid() == 0 ? "postgres" : nil
    folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("chronicle-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    if owner != nil {
      try Self.run("/bin/chown", ["postgres:postgres", folder.path])
    }
    port = try ReservedPort.next()  // it is stopped and started again on it
    try tool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--no-instructions"])
    if tls {
      try Self.makeCertificateAuthority(in: folder)
      try Self.run("/usr/bin/openssl", [
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
        "-keyout", folder.appendingPathComponent("server.key").path, "-out", folder.appendingPathComponent("server.csr").path,
      ])
      let extensions = folder.appendingPathComponent("server.ext")
      try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(to: extensions, atomically: false, encoding: .utf8)
      try Self.run("/usr/bin/openssl", [
        "x509", "-req", "-in", folder.appendingPathComponent("server.csr").path, "-CA", certificateAuthority,
        "-CAkey", folder.appendingPathComponent("ca.key").path, "-CAcreateserial", "-days", "2", "-extfile", extensions.path,
        "-out", folder.appendingPathComponent("server.crt").path,
      ])
      chmod(folder.appendingPathComponent("server.key").path, 0o600)
      if owner != nil {
        try Self.run("/bin/chown", ["postgres:postgres", folder.appendingPathComponent("server.key").path, folder.appendingPathComponent("server.crt").path])
      }
      // TCP connections without TLS are refused: one that succeeds used it.
      try """
        local all all trust
        hostssl all all 127.0.0.1/32 trust
        hostnossl all all 127.0.0.1/32 reject

        """.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
    }
    try start()
  }

  /// Makes a certificate authority (`ca.crt`, `ca.key`) in `directory`; returns the certificate's path.
  @discardableResult
  public static func makeCertificateAuthority(in directory: URL) throws -> String {
    let certificate = directory.appendingPathComponent("ca.crt").path
    try run("/usr/bin/openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
      "-subj", "/CN=Chronicle test authority \(UUID().uuidString.prefix(8))",
      "-keyout", directory.appendingPathComponent("ca.key").path, "-out", certificate,
    ])
    return certificate
  }

  private var data: String { folder.appendingPathComponent("data").path }

  private var tlsOptions: String {
    guard tls else { return "" }
    return " -c ssl=on -c ssl_cert_file=\(folder.appendingPathComponent("server.crt").path) -c ssl_key_file=\(folder.appendingPathComponent("server.key").path)"
  }

  /// Starts the server (again, after ``stop(immediately:)``) and waits until it accepts connections.
  public func start() throws {
    try tool("pg_ctl", [
      "-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60",
      "-o", "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" + tlsOptions,
      "start",
    ])
  }

  /// The first value of `sql`'s result, as psql prints it.
  public func value(_ sql: String) throws -> String {
    try Self.run(binaries.appendingPathComponent("psql").path, ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-tAc", sql])
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Stops the server: `immediately` is a crash (no checkpoint, clients cut off).
  public func stop(immediately: Bool = false) throws {
    try tool("pg_ctl", ["-D", data, "-m", immediately ? "immediate" : "fast", "-w", "stop"])
  }

  deinit {
    try? tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(at: folder)
  }

  private func tool(_ name: String, _ arguments: [String]) throws {
    let path = binaries.appendingPathComponent(name).path
    if let owner {
      try Self.run("/sbin/runuser", ["-u", owner, "--", path] + arguments)
    } else {
      try Self.run(path, arguments)
    }
  }

  private static func findBinaries() throws -> URL {
    let root = URL(fileURLWithPath: "/usr/lib/postgresql")
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
      let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
      if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
    }
    throw Failure(description: "PostgreSQL's server tools (initdb, pg_ctl) are not installed: apt-get install postgresql (.ci/run does)")
  }

  /// Runs a tool to its end, its output into a file. Not through
  /// Foundation's `Process`: that waits for a descriptor the server started
  /// by `pg_ctl` inherits, so it would wait as long as the server runs.
  @discardableResult
  private static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let outputFile = NSTemporaryDirectory() + "chronicle-pg-output-\(UUID().uuidString)"
    defer { unlink(outputFile) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw Failure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    guard exited == 0 else {
      let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
      throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(exited): \(text)")
    }
    return (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
  }
}
