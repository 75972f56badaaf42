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
      let signedCount = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_events WHERE format_version >= 2") ?? 0 }
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

  // Routes (what lets any member forward an event to a relay): the origin
  // seals each of its events for relays and signs the sealed bytes, once
  // (kept); a relay checks the signature before storing; a forwarder seals
  // again and checks. Small transactions, where the per-event cost shows.
  let grouped = try Chronicle.open(path: folder.appendingPathComponent("routes-\(UUID()).sqlite").path)
  try await grouped.write { db in try db.execute(sql: schema) }
  _ = try grouped.createGroup()
  _ = try manySmallTransactions(
    Target(name: "Chronicle", write: { body in try grouped.write(body) }, close: {}), transactions: transactions, rowsEach: rowsEach)
  try grouped.sealOwnEvents()
  let own = try grouped.ownEvents(after: 0, maxEvents: .max, maxBytes: .max)
  let ids = own.map { EventID(origin: grouped.peerID, sequence: $0.sequence) }
  let made = try measure { _ = try grouped.eventRoutes(for: ids) }
  let routed = Dictionary(try grouped.eventRoutes(for: ids).map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
  // Membership events travel in the clear and need none.
  let pairs = own.compactMap { event in routed[event.sequence].map { (event, $0) } }
  guard let keyring = try grouped.groupKeyring(), let group = try grouped.group else { throw BenchmarkFailure("no group keys") }
  let cipher = RelayEventCipher(keyring: keyring)
  var sealed: [SealedEvent] = []
  for (event, route) in pairs {
    guard var one = try cipher.seal(event.bytes, origin: grouped.peerID, sequence: event.sequence, epoch: route.epoch) else { continue }
    one.route = route.signature
    sealed.append(one)
  }
  let publicKey = try grouped.members().first { $0.device == grouped.peerID }?.publicKey ?? []
  var verified = 0
  let relayChecks = measure { verified = sealed.filter { EventRoute.verify($0, group: group, publicKey: publicKey) }.count }
  var resealed = 0
  let forwarding = try measure {
    for (event, route) in pairs {
      guard var one = try cipher.seal(event.bytes, origin: grouped.peerID, sequence: event.sequence, epoch: route.epoch) else { continue }
      one.route = route.signature
      if EventRoute.verify(one, group: group, publicKey: publicKey) { resealed += 1 }
    }
  }
  guard pairs.count == sealed.count, verified == sealed.count, resealed == sealed.count, !sealed.isEmpty else {
    throw BenchmarkFailure("routes: \(routed.count) made, \(verified) of \(sealed.count) verify, \(resealed) forwardable")
  }
  let perEvent = 1e6 / Double(sealed.count)
  print(String(
    format: "  routes of %d events (%.0f bytes each): made %.1f µs an event (all cores, stored), relay check %.1f µs, forwarder's reseal + check %.1f µs",
    sealed.count, Double(pairs.reduce(0) { $0 + $1.0.bytes.count }) / Double(pairs.count), made * perEvent, relayChecks * perEvent, forwarding * perEvent))

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
