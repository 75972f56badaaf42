import Foundation
import GRDB

/// This database's device: its peer id and, when its key file is beside it, its key.
struct DeviceState {
  var peer: PeerID
  var key: DeviceKey?
}

/// Who a database writes as: its peer id, its public key, and where its
/// private key is kept.
public struct DeviceIdentity: Sendable, Equatable {
  /// The origin of the events this database writes.
  public var peerID: PeerID
  /// The 32 bytes of the device's Ed25519 public key, as recorded in the database.
  public var publicKey: [UInt8]
  /// The file that holds the private key, beside the database (`PATH-device.key`).
  public var keyFile: URL
  /// Whether the key file is there and holds this device's key: only then can
  /// the database write (and sign what it wrote).
  public var canSign: Bool
}

extension ChronicleDatabase {
  /// This database's device identity.
  ///
  /// Each database is a device with its own Ed25519 key, made when the
  /// database is created (or first opened by a version with device keys). A
  /// new database's peer id is derived from its key, so no other device can
  /// sign under it. The private key is kept in ``DeviceIdentity/keyFile``,
  /// beside the database and never inside it: a copy of the database file
  /// without that file can be read and synced from, but not written to.
  public var identity: DeviceIdentity {
    get throws {
      let state = device.withLock { $0 }
      let recorded = try read { db in try DeviceRegistry(db: db).device(state.peer) }
      return DeviceIdentity(
        peerID: state.peer, publicKey: recorded?.publicKey ?? [], keyFile: DeviceKey.fileURL(forDatabaseAt: path),
        canSign: state.key != nil)
    }
  }

  /// Gives the database its device at open: a new database gets a new key
  /// (and, unless a test fixed its peer id, the id derived from it); one from
  /// before device keys keeps its peer id and gets a key that signs its
  /// events from its next sequence on; an existing device reads its key
  /// file, and without it (nil) cannot write.
  static func establishDevice(_ db: Database, requested: PeerIdentity, path: String) throws -> (PeerID, DeviceKey?) {
    let keyFile = DeviceKey.fileURL(forDatabaseAt: path)
    let registry = DeviceRegistry(db: db)
    guard let blob = try Data.fetchOne(db, sql: "SELECT peer_id FROM chronicle_peer"), let stored = PeerID(bytes: blob) else {
      // A new database. A key file left by an earlier database of the same
      // name is not reused: its peer id's events may be out there already.
      let key = DeviceKey.generate()
      let peer: PeerID
      if case .fixed(let wanted) = requested { peer = wanted } else { peer = key.derivedPeerID }
      try db.execute(
        sql: "INSERT INTO chronicle_peer (singleton, peer_id, created_at) VALUES (1, ?, ?)",
        arguments: [Data(peer.bytes), ISO8601DateFormatter().string(from: Date())])
      try registry.record(peer, .init(publicKey: key.publicKey, firstSignedSequence: 1))
      try key.write(to: keyFile, replacing: true)
      return (peer, key)
    }
    if case .fixed(let wanted) = requested, wanted != stored {
      throw ChronicleError.peerMismatch(stored: stored, requested: wanted)
    }
    guard let recorded = try registry.device(stored) else {
      // From before device keys: sign from the next event on.
      let key = DeviceKey.generate()
      let next = try LocalLogPosition.read(db, origin: stored).nextSequence
      try registry.record(stored, .init(publicKey: key.publicKey, firstSignedSequence: next))
      try key.write(to: keyFile, replacing: true)
      return (stored, key)
    }
    if let key = try DeviceKey.read(from: keyFile), key.publicKey == recorded.publicKey { return (stored, key) }
    // A replacement key whose change committed but was not moved into place.
    let pendingFile = DeviceKey.pendingFileURL(forDatabaseAt: path)
    if let key = try DeviceKey.read(from: pendingFile), key.publicKey == recorded.publicKey {
      try DeviceKey.replace(keyFile, with: pendingFile)
      return (stored, key)
    }
    return (stored, nil)
  }

  /// Signs this device's events that are still unsigned, before they leave
  /// it: every transport and export calls this first. Capture writes events
  /// unsigned (version 1) because a signature costs more than a small commit;
  /// sealing gives them their signed and linked form (version 3), once, in
  /// sequence order.
  package func sealOwnEvents() throws {
    let suspected = try read { db in try UntrackedWrites.suspectedTables(db) }
    guard suspected.isEmpty else { throw ChronicleError.untrackedWritesSuspected(tables: suspected) }
    guard signsEvents else { return }
    let state = device.withLock { $0 }
    let peer = state.peer
    let pending = try read { db -> Bool in
      guard let device = try DeviceRegistry(db: db).device(peer) else { return false }
      let from = max(Int64(device.firstSignedSequence), try Self.sealedThrough(db) + 1)
      return try EventLog.firstUnsignedSequence(db, origin: peer, from: from) != nil
    }
    guard pending else { return }
    guard let key = state.key else {
      throw ChronicleError.deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: peer)
    }
    // A page at a time (bounded memory, and the writer is let go between
    // pages), each page signed on all cores.
    var done = false
    while !done {
      try writer.write { db in done = try Self.sealPage(of: peer, with: key, db) }
    }
  }

  /// Signs the next page of `peer`'s unsigned events (those from its first
  /// signed sequence and the sealing mark on) with `key`, inside the
  /// caller's transaction: each linked to the one before it (a chain of
  /// digests, made in order), the signatures made on all cores. Returns
  /// whether none is left.
  static func sealPage(of peer: PeerID, with key: DeviceKey, _ db: Database) throws -> Bool {
    let pageSize = 1024
    guard let device = try DeviceRegistry(db: db).device(peer) else { return true }
    let from = max(Int64(device.firstSignedSequence), try Self.sealedThrough(db) + 1)
    let events = try EventLog.eventsToSeal(db, origin: peer, from: from, limit: pageSize)
    guard let last = events.last else { return true }
    var link = try EventLog.link(db, origin: peer, before: events[0].sequence)
    var covered: [(position: Int64, bytes: [UInt8])] = []
    for (index, event) in events.enumerated() {
      if event.unsigned {
        let bytes = EventSignature.covered(event.bytes, linkedTo: link, key: key)
        covered.append((event.position, bytes))
        link = EventSignature.historyDigest(ofCovered: bytes)
      } else {
        link = EventSignature.historyDigest(of: event.bytes)
      }
      // A gap (an event the log no longer holds) links to no event.
      if index + 1 < events.count, events[index + 1].sequence != event.sequence + 1 { link = EventSignature.noLink }
    }
    let signed = covered.concurrentMap { event in (position: event.position, bytes: EventSignature.sign(event.bytes, with: key)) }
    for event in signed {
      try EventLog.replaceWithSigned(db, position: event.position, bytes: event.bytes)
    }
    try ChronicleMeta(db: db).set(.sealedThrough, to: last.sequence)
    let done = events.count < pageSize
    if done { try VersionVector.saveCheckpoint(db) }
    return done
  }

  /// The first of this device's events that is still unsigned, when this
  /// database signs its events: an event committed after the last
  /// ``sealOwnEvents()``. Nothing from it on may leave the device until the
  /// next sealing (a relay would store it as it is, and every receiver
  /// would refuse it).
  func firstUnsealedOwnSequence(_ db: Database) throws -> UInt64? {
    guard signsEvents, let device = try DeviceRegistry(db: db).device(peerID) else { return nil }
    // Events up to the sealing mark are sealed: looking from there keeps
    // this a probe, not a walk through every event this device wrote.
    let from = max(Int64(device.firstSignedSequence), try Self.sealedThrough(db) + 1)
    return try EventLog.firstUnsignedSequence(db, origin: peerID, from: from).map { UInt64($0) }
  }

  private static func sealedThrough(_ db: Database) throws -> Int64 {
    try ChronicleMeta(db: db).value(.sealedThrough) ?? 0
  }
}
