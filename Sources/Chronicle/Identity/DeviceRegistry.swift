import Foundation
import GRDB

/// `chronicle_devices`: the public keys of the devices whose signed events
/// this log holds, and from which sequence each one signs.
struct DeviceRegistry {
  struct Device: Equatable {
    var publicKey: [UInt8]
    var firstSignedSequence: UInt64
  }

  let db: Database

  func device(_ peer: PeerID) throws -> Device? {
    guard let row = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT public_key, first_signed_sequence FROM chronicle_devices WHERE peer_id = ?"),
      arguments: [Data(peer.bytes)])
    else { return nil }
    return Device(publicKey: Array(row[0] as Data), firstSignedSequence: UInt64(row[1] as Int64))
  }

  func record(_ peer: PeerID, _ device: Device) throws {
    try db.cachedStatement(sql: """
      INSERT INTO chronicle_devices (peer_id, public_key, first_signed_sequence) VALUES (?, ?, ?)
      ON CONFLICT (peer_id) DO UPDATE SET public_key = excluded.public_key, first_signed_sequence = excluded.first_signed_sequence
      """).execute(arguments: [Data(peer.bytes), Data(device.publicKey), Int64(device.firstSignedSequence)])
  }
}
