import Chronicle
import ChronicleNetwork
import Foundation
import Testing

import ChronicleTestSupport

@testable import ChronicleRelay

/// A relay reaches PostgreSQL over TLS as libpq would (`sslmode`,
/// `sslrootcert`): verified when asked, never downgraded to the clear when
/// TLS is required, and a certificate it was not told to trust is refused.
@Suite("Relay: PostgreSQL over TLS")
struct RelayPostgresTLSTests {
  @Test func aRelayVerifiesThePostgresServerAndSyncsOverTLS() async throws {
    let postgres = try TemporaryPostgres(tls: true)
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try writeNotes(phone, 1...5)
    let verified = "\(postgres.url)?sslmode=verify-full&sslrootcert=\(postgres.certificateAuthority)"
    var configuration = RelayServerConfiguration(storage: .postgres(url: verified), logger: quietLogger)
    configuration.port = 0
    configuration.openGroups = true
    try await withRelay(configuration) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(laptop)
      #expect(try laptop.notesDigest() == phone.notesDigest())
    }
    // The server refuses TCP without TLS: the relay above used it.
    let plain = await #expect(throws: RelayStoreError.self) {
      try await PostgresRelayStore(url: "\(postgres.url)?sslmode=disable", logger: quietLogger).close()
    }
    #expect("\(plain.map { "\($0)" } ?? "")".contains("the relay cannot use PostgreSQL at 127.0.0.1:\(postgres.port)"), "\(String(describing: plain))")
  }

  /// A relay operator's misconfiguration, or a server in between: a
  /// certificate signed by another authority, or no TLS where it is required.
  @Test func anUntrustedCertificateOrAServerWithoutTLSIsRefused() async throws {
    let postgres = try TemporaryPostgres(tls: true)
    let directory = try TemporaryDirectory()
    let otherAuthority = try TemporaryPostgres.makeCertificateAuthority(in: directory.url)
    let untrusted = await #expect(throws: RelayStoreError.self) {
      try await PostgresRelayStore(url: "\(postgres.url)?sslmode=verify-full&sslrootcert=\(otherAuthority)", logger: quietLogger).close()
    }
    #expect("\(untrusted.map { "\($0)" } ?? "")".contains("the TLS handshake failed"), "\(String(describing: untrusted))")
    // Verifying the chain but not the name: the right authority passes.
    try await PostgresRelayStore(url: "\(postgres.url)?sslmode=verify-ca&sslrootcert=\(postgres.certificateAuthority)", logger: quietLogger).close()

    let clear = try TemporaryPostgres()
    let downgraded = await #expect(throws: RelayStoreError.self) {
      try await PostgresRelayStore(url: "\(clear.url)?sslmode=require", logger: quietLogger).close()
    }
    #expect("\(downgraded.map { "\($0)" } ?? "")".contains("it does not speak TLS, and the address asks for it"), "\(String(describing: downgraded))")
    // prefer: TLS when offered, the clear otherwise.
    try await PostgresRelayStore(url: "\(clear.url)?sslmode=prefer", logger: quietLogger).close()
  }

  @Test func addressesWithAnUnknownModeOrAMissingRootCertificateAreRefusedBeforeConnecting() throws {
    let unknown = #expect(throws: RelayStoreError.self) {
      _ = try PostgresAddress("postgres://relay@db.example/relay?sslmode=verify")
    }
    #expect("\(unknown.map { "\($0)" } ?? "")".contains("give one of disable, prefer, require, verify-ca, verify-full"))
    let missing = #expect(throws: RelayStoreError.self) {
      _ = try PostgresAddress("postgres://relay@db.example/relay?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt")
    }
    #expect("\(missing.map { "\($0)" } ?? "")".contains("sslrootcert /nonexistent/ca.crt is not a readable file"))
    let socket = #expect(throws: RelayStoreError.self) {
      _ = try PostgresAddress("postgres://relay@/relay?host=/run/postgresql&sslmode=require")
    }
    #expect("\(socket.map { "\($0)" } ?? "")".contains("a Unix socket is local"))
  }
}
