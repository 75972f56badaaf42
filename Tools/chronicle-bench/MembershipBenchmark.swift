// Membership: what a group's member list costs. Resolving the history of a
// group (every device does it when membership events arrive, the relay at
// each hello), and the admission of a member's batch of data events, beside
// the same batch in no group, in the same run.
import Chronicle
import Foundation

func runMembershipBenchmark(sizes: [Int], batch workload: SyncWorkload, repeats: Int, folder: URL) throws {
  print("\nmembership: resolving a group's history, and admitting a member's batch beside the same batch in no group (best of \(repeats))")
  print("group".padding(toLength: 40, withPad: " ", startingAt: 0) + "events   resolve ms   per event µs")
  var rekeys: [(size: Int, active: Int, founder: ChronicleDatabase, member: ChronicleDatabase)] = []
  for size in sizes {
    let (founder, devices) = try makeGroup(of: size, in: folder)
    let events = try founder.membershipEvents()
    guard let group = try founder.group else { throw BenchmarkFailure("the group was not created") }
    let history = MembershipHistory(group: group, events: events)
    var state = history.resolve()
    let resolve = (0..<repeats).map { _ in measure { state = history.resolve() } }.min()!
    let active = state.members.values.filter(\.isActive).count
    guard active == size - size / 10, state.refused.isEmpty else {
      throw BenchmarkFailure("the group of \(size) resolved to \(active) active members, \(state.refused.count) refused")
    }
    print("\(size) devices, \(size / 10) revoked, \(size / 5) role changes".padding(toLength: 40, withPad: " ", startingAt: 0)
      + String(format: "%6d   %10.2f   %12.1f", events.count, resolve * 1e3, resolve / Double(events.count) * 1e6))
    rekeys.append((size, active, founder, devices[1]))
  }

  // A new key epoch: the admin's change (a key sealed to every active
  // member, signed, the history resolved again), a member receiving it, and
  // that member opening its keys (every epoch granted to it).
  print("rekey".padding(toLength: 40, withPad: " ", startingAt: 0) + "write ms   receive ms   open keys ms")
  for (size, active, founder, member) in rekeys {
    try exchange(founder, member)
    var write = Double.infinity, receive = Double.infinity, open = Double.infinity
    for _ in 0..<repeats {
      write = min(write, try measure { try founder.rekey() })
      let change = try founder.serializedEvents(beyond: member.versionVector())
      receive = min(receive, try measure { _ = try member.applyRemote(serializedEvents: change, source: "bench") })
      var keyring: GroupKeyring?
      open = min(open, try measure { keyring = try member.groupKeyring() })
      guard let keyring, keyring.sealingEpoch == keyring.currentEpoch, keyring.sealingEpoch != nil else {
        throw BenchmarkFailure("the member of a group of \(size) was not granted the new epoch's key")
      }
    }
    print("\(size) devices (\(active) active)".padding(toLength: 40, withPad: " ", startingAt: 0)
      + String(format: "%8.2f   %10.2f   %12.2f", write * 1e3, receive * 1e3, open * 1e3))
  }

  // A member's batch of data events, applied by another member of a group
  // of the largest size, and by a peer of no group.
  let size = sizes.max()!
  var inGroup = Double.infinity, noGroup = Double.infinity
  var events = 0
  for _ in 0..<repeats {
    let (founder, devices) = try makeGroup(of: size, in: folder)
    let writer = devices[size / 5 + 1], receiver = devices[size / 5 + 2]  // writers (or admins), not revoked
    try exchange(founder, receiver)
    try exchange(founder, writer)
    try workload.write(into: writer)
    let batch = try writer.serializedEvents(beyond: receiver.versionVector())
    events = batch.count
    inGroup = min(inGroup, try measure { _ = try receiver.applyRemote(serializedEvents: batch, source: "bench") })
    guard try receiver.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") }) == workload.rows else {
      throw BenchmarkFailure("the member's batch was not applied")
    }
    let loneWriter = try workload.makeTarget(in: folder), loneReceiver = try workload.makeTarget(in: folder)
    try exchange(loneWriter, loneReceiver)
    try workload.write(into: loneWriter)
    let loneBatch = try loneWriter.serializedEvents(beyond: loneReceiver.versionVector())
    noGroup = min(noGroup, try measure {
      _ = try loneReceiver.applyRemote(serializedEvents: loneBatch, source: "bench")
    })
  }
  print(String(
    format: "a member's batch of %d events (%d row changes), group of %d: %.3f s; the same in no group: %.3f s (%.2fx)",
    events, workload.rowChanges, size, inGroup, noGroup, inGroup / noGroup))
}

/// A group of `size` devices: the founder, the others admitted with
/// invitations (a tenth of them as admins), then a fifth made readers and a
/// tenth revoked. The founder holds the whole history.
private func makeGroup(of size: Int, in folder: URL) throws -> (ChronicleDatabase, [ChronicleDatabase]) {
  let devices = try (0..<size).map { index in
    let database = try Chronicle.open(path: folder.appendingPathComponent("member-\(index)-\(UUID()).sqlite").path)
    try database.write { db in try db.execute(sql: schema) }
    return database
  }
  let founder = devices[0]
  try founder.createGroup()
  for (index, device) in devices.enumerated().dropFirst() {
    try device.join(try founder.invite(as: index % 10 == 0 ? .admin : .writer))
    try exchange(device, founder)
  }
  for device in devices.dropFirst().prefix(size / 5) {
    try founder.changeRole(of: device.peerID, to: .reader)
  }
  for device in devices.suffix(size / 10) { try founder.revoke(device.peerID) }
  return (founder, devices)
}

/// Sends what `source` has beyond `target`'s vector (a bundle, in memory).
private func exchange(_ source: ChronicleDatabase, _ target: ChronicleDatabase) throws {
  let events = try source.serializedEvents(beyond: target.versionVector())
  _ = try target.applyRemote(serializedEvents: events, source: "bench")
}

extension SyncWorkload {
  /// The workload's inserts and updates, written into `database`.
  func write(into database: ChronicleDatabase) throws {
    for start in stride(from: 1, through: rows, by: rowsPerEvent) {
      try database.write { db in
        let statement = try db.cachedStatement(sql: insertSQL)
        for id in start..<min(start + rowsPerEvent, rows + 1) { try statement.execute(arguments: arguments(id)) }
      }
    }
    for start in stride(from: 1, through: rows, by: rowsPerEvent) {
      try database.write { db in
        try db.execute(sql: "UPDATE items SET count = count + 1 WHERE id >= ? AND id < ?", arguments: [start, start + rowsPerEvent])
      }
    }
  }
}
