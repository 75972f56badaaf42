import Foundation
import GRDB

/// A Chronicle database file opened read-only, for the tools that inspect it
/// (replay, step, diff, blame, verify).
///
/// Opening an archive changes nothing in the file, unlike
/// ``Chronicle/open(path:tables:configuration:)``, which installs
/// Chronicle's tables and logs schema changes it finds. Use it on a copy of a
/// user's database, or on a database another process is writing.
public final class ChronicleArchive: ChronicleLogSource {
  public let path: String
  public let peerID: PeerID
  let reader: DatabaseQueue

  /// Opens the Chronicle database at `path` read-only.
  ///
  /// - Throws: ``ChronicleError/noSuchFile(_:)`` when there is no file, and
  ///   ``ChronicleError/notAChronicleDatabase(_:)`` when it is a SQLite file
  ///   without Chronicle's tables.
  public init(path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { throw ChronicleError.noSuchFile(path) }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in db.addChronicleFunctions() }
    let reader = try DatabaseQueue(path: path, configuration: configuration)
    let peer = try reader.read { db -> PeerID? in
      guard try db.tableExists("chronicle_events"), try db.tableExists("chronicle_peer") else { return nil }
      return try Data.fetchOne(db, sql: "SELECT peer_id FROM chronicle_peer").flatMap { PeerID(bytes: $0) }
    }
    guard let peer else { throw ChronicleError.notAChronicleDatabase(path) }
    self.path = path
    self.peerID = peer
    self.reader = reader
  }

  public var log: EventLog { EventLog(reader: reader) }

  public func read<T>(_ value: (Database) throws -> T) throws -> T {
    try reader.read(value)
  }

  /// The database's device identity, as ``ChronicleDatabase/identity`` shows
  /// it; ``DeviceIdentity/canSign`` tells whether the key file beside the
  /// database holds the recorded key.
  public var identity: DeviceIdentity {
    get throws {
      let peer = peerID
      let recorded = try read { db in
        try db.tableExists("chronicle_devices") ? DeviceRegistry(db: db).device(peer)?.publicKey : nil
      }
      let keyFile = DeviceKey.fileURL(forDatabaseAt: path)
      let key = try DeviceKey.read(from: keyFile)
      return DeviceIdentity(
        peerID: peer, publicKey: recorded ?? [], keyFile: keyFile,
        canSign: key != nil && key?.publicKey == recorded)
    }
  }
}
