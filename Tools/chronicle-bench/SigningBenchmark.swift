// Signatures: what device signatures cost, measured as the same work with
// signing on and off in the same run (ChronicleConfiguration.signsEvents, a
// switch only the benchmark turns off).
import Chronicle
import Crypto
import Foundation

func runSigningBenchmark(transactions: Int, rowsEach: Int, sync workload: SyncWorkload, repeats: Int, folder: URL) async throws {
  func configuration(signing: Bool) -> ChronicleConfiguration {
    var configuration = ChronicleConfiguration()
    configuration.signsEvents = signing
    return configuration
  }

  // Capture: small transactions, then what the first send does before
  // anything leaves (sign every event the device wrote).
  var capture = [false: Double.infinity, true: Double.infinity]
  var captureAndSign = [false: Double.infinity, true: Double.infinity]
  for _ in 0..<repeats {
    for signing in [false, true] {
      let database = try Chronicle.open(
        path: folder.appendingPathComponent("signing-\(UUID()).sqlite").path, configuration: configuration(signing: signing))
      try await database.write { db in try db.execute(sql: schema) }
      let target = Target(name: "Chronicle", write: { body in try database.write(body) }, close: {})
      let captured = try manySmallTransactions(target, transactions: transactions, rowsEach: rowsEach)
      let signed = try measure { try database.sealOwnEvents() }
      capture[signing] = min(capture[signing]!, captured)
      captureAndSign[signing] = min(captureAndSign[signing]!, captured + signed)
      // Outside the timing: check that signing did (or did not) happen.
      let signedCount = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_events WHERE format_version = 2") ?? 0 }
      let events = try database.log.count()
      guard signedCount == (signing ? events : 0) else { throw BenchmarkFailure("\(signedCount) of \(events) events signed (signing \(signing))") }
    }
  }
  print("\nsignatures: the same work with signing off and on, same run (best of \(repeats))")
  print("step".padding(toLength: 58, withPad: " ", startingAt: 0) + "unsigned s   signed s   added")
  func line(_ name: String, _ off: Double, _ on: Double) {
    print(name.padding(toLength: 58, withPad: " ", startingAt: 0)
      + String(format: "%9.3f   %8.3f   %+.1f%%", off, on, (on / off - 1) * 100))
  }
  line("capture \(transactions) x \(rowsEach) rows (signing is not on commit)", capture[false]!, capture[true]!)
  line("capture \(transactions) x \(rowsEach) rows, then sign them all", captureAndSign[false]!, captureAndSign[true]!)

  // One Ed25519 signature and one check, alone (swift-crypto), for scale.
  let key = Curve25519.Signing.PrivateKey()
  let message = Data(repeating: 7, count: 1_024)
  var signature = Data()
  let signs = try measure { for _ in 0..<2_000 { signature = try key.signature(for: message) } }
  var valid = true
  let checks = measure { for _ in 0..<2_000 { valid = valid && key.publicKey.isValidSignature(signature, for: message) } }
  guard valid else { throw BenchmarkFailure("a signature did not verify") }
  print(String(format: "  one Ed25519 signature: %.1f µs, one check: %.1f µs (1 KiB message)", signs / 2_000 * 1e6, checks / 2_000 * 1e6))

  // Sync: a fresh peer fetches the whole history (memory transport). The
  // first fetch from a source also signs its events; later ones only verify.
  var first = [false: 0.0, true: 0.0]
  var fetch = [false: Double.infinity, true: Double.infinity]
  var events = 0
  for signing in [false, true] {
    let source = try workload.makeSource(in: folder, configuration: configuration(signing: signing))
    events = try source.log.count()
    let expected = try source.digests().filter { $0.table == "items" }
    for run in 0..<max(2, repeats) {
      let target = try workload.makeTarget(in: folder, configuration: configuration(signing: signing))
      let seconds = try await measureAsync { _ = try await MemoryTransport(peer: source).fetch(into: target) }
      try check(target, equals: expected)
      if run == 0 { first[signing] = seconds } else { fetch[signing] = min(fetch[signing]!, seconds) }
    }
  }
  line("sync \(workload.rowChanges) changes (\(events) events): first fetch, signs + checks", first[false]!, first[true]!)
  line("sync \(workload.rowChanges) changes: later fetches, checks only", fetch[false]!, fetch[true]!)
}
