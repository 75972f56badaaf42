import ArgumentParser
import Chronicle
import Foundation

/// This database as a device: its peer id, its public key and its key file.
struct Identity: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show this database's device: peer id, public key (what `chronicle invite --device` takes) and key file.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let identity = try ChronicleArchive(path: database).identity
      print("peer \(identity.peerID)")
      print("public key \(identity.publicKey.hexadecimal)")
      print("key file \(identity.keyFile.path)\(identity.canSign ? "" : " (missing: this copy cannot write)")")
    }
  }
}

struct Group: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show this database's group, or create one with --create (this device and those it already syncs with become its members).")

  @Argument(help: "The SQLite file.") var database: String
  @Flag(help: "Create a group with this device as its first member.") var create = false

  func run() {
    reportingErrors {
      if create {
        print("group \(try Chronicle.open(path: database).createGroup().uuidString.lowercased())")
      } else if let group = try ChronicleArchive(path: database).group {
        print("group \(group.uuidString.lowercased())")
      } else {
        print("no group: this database syncs with any device whose events are signed (create one with --create)")
      }
    }
  }
}

struct Invite: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print an invitation into this database's group (give it to the new device: chronicle join), or add a device by its key.")

  @Argument(help: "The SQLite file.") var database: String
  @Option(help: "How long the invitation admits, in hours (by the admitting admin's clock).") var hours: Int = 168
  @Option(help: "The role of the device it admits: reader, writer or admin.") var role: String = "writer"
  @Option(help: "Add this device's public key (64 hex digits, from `chronicle identity` on it) instead of printing an invitation.")
  var device: String?

  func run() {
    reportingErrors {
      guard let role = MemberRole(rawValue: role) else { throw ValidationError("--role takes reader, writer or admin, not \(role)") }
      let db = try Chronicle.open(path: database)
      if let device {
        guard let key = [UInt8](hexadecimal: device), key.count == 32 else {
          throw ValidationError("--device takes a public key: 64 hex digits, as `chronicle identity` prints it on that device")
        }
        try db.addMember(publicKey: key, as: role)
        print("added device \(PeerID(publicKey: key)) as \(role)")
      } else {
        guard hours > 0 else { throw ValidationError("--hours must be at least 1") }
        print(try db.invite(as: role, expiresIn: .seconds(hours * 3600)).text)
      }
    }
  }
}

struct Join: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Ask to join the group of an invitation (from `chronicle invite` on an admin); sync with an admin (or the relay) to be admitted, then again to receive the group's data.")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "The invitation (chronicle-invitation-v2:...).") var invitation: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      let invitation = try Invitation(text: invitation)
      try db.join(invitation)
      print("asked to join group \(invitation.group.uuidString.lowercased()) as \(invitation.role), invited by \(invitation.inviter): sync with an admin's device (or the relay) to be admitted")
    }
  }
}

struct Members: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the devices of this database's group: roles, who added each and when, and revocations.")

  @Argument(help: "The SQLite file.") var database: String
  @Flag(help: "Print JSON.") var json = false

  func run() {
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      let members = try db.members()
      if json {
        try EventDescription.printJSON(members.map { member in
          [
            "device": member.device.description, "role": member.role.rawValue, "admission": member.admission.rawValue,
            "addedBy": member.addedBy?.description ?? NSNull(), "addedAt": "\(member.addedAt)",
            "revokedBy": member.revokedBy?.description ?? NSNull(),
            "revokedAfterSequence": member.revokedAfterSequence.map { Int($0) as Any } ?? NSNull(),
            "demotedAfterSequence": member.demotedAfterSequence.map { Int($0) as Any } ?? NSNull(),
            "self": member.device == db.peerID,
          ] as [String: Any]
        })
        return
      }
      guard !members.isEmpty else {
        print("no group (create one: chronicle group DB --create)")
        return
      }
      for member in members {
        var line = "\(member.device)  \(member.role)  \(member.admission.rawValue)"
        if let by = member.addedBy { line += " by \(by.shortDescription)" }
        if member.addedAt.rawValue > 0 { line += " at \(member.addedAt)" }
        if let after = member.demotedAfterSequence, member.revokedBy == nil { line += "  writes through :\(after)" }
        if let by = member.revokedBy { line += "  REVOKED by \(by.shortDescription) after :\(member.revokedAfterSequence ?? 0)" }
        if member.device == db.peerID { line += "  (this device)" }
        print(line)
      }
    }
  }
}

struct Revoke: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke a device: every peer that syncs this change refuses its events after the last one this database holds.")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "The device's peer id (as `chronicle members` lists it).") var device: String

  func run() {
    reportingErrors {
      guard let peer = PeerID(device) else { throw ValidationError("\(device) is not a peer id (a UUID, as chronicle members lists it)") }
      try Chronicle.open(path: database).revoke(peer)
      print("revoked \(peer)")
    }
  }
}

struct Role: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Give a member of this database's group another role (reader, writer or admin); an admin's change.")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "The device's peer id (as `chronicle members` lists it).") var device: String
  @Argument(help: "reader, writer or admin.") var role: String

  func run() {
    reportingErrors {
      guard let peer = PeerID(device) else { throw ValidationError("\(device) is not a peer id (a UUID, as chronicle members lists it)") }
      guard let role = MemberRole(rawValue: role) else { throw ValidationError("the role is reader, writer or admin, not \(role)") }
      try Chronicle.open(path: database).changeRole(of: peer, to: role)
      print("\(peer) is now \(role)")
    }
  }
}

struct Rekey: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Start a new key epoch for this database's group: a new content key, sealed to each active member's device; an admin's change.",
    discussion: "A revocation starts one by itself. Devices seal what they send to a relay with the new key once they receive this change.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      try db.rekey()
      let active = try db.members().filter { $0.isActive && $0.publicKey != nil }.count
      print("started a new key epoch, sealed to \(active) active member\(active == 1 ? "" : "s"); sync to hand it out")
    }
  }
}
