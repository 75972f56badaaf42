import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// `chronicle identity`, `group`, `invite`, `join`, `members`, `role`, `revoke`, and
/// how `import` and `verify` treat events of devices that are not members.
@Suite("chronicle identity, group, invite, join, members, role, revoke")
struct DeviceCommandsTests {
  let tool = ReplayCommandsTests()

  func folder() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-devices-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test func aGroupIsMadeJoinedListedAndARevokedDevicesBundleRefused() async throws {
    try await offThePool { try groupFlow() }
  }

  func groupFlow() throws {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (a, b) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path)
    for path in [a, b] {
      let database = try Chronicle.open(path: path)
      try database.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT") }
    }

    let initialized = try tool.chronicle("init", a)
    #expect(initialized.output.contains("device key \(a)-device.key"), "\(initialized.output)")
    let identity = try tool.chronicle("identity", a)
    #expect(identity.status == 0 && identity.output.contains("public key "), "\(identity.errors)")

    #expect(try tool.chronicle("invite", a).status == 2)  // no group yet
    let created = try tool.chronicle("group", a, "--create")
    #expect(created.status == 0, "\(created.errors)")
    let invitation = try tool.chronicle("invite", a, "--hours", "1")
    #expect(invitation.status == 0 && invitation.output.hasPrefix("chronicle-invitation-v2:"), "\(invitation.errors)")
    let joined = try tool.chronicle("join", b, invitation.output.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(joined.status == 0, "\(joined.errors)")
    #expect(try tool.chronicle("join", b, "chronicle-invitation-v1:AAAA").status == 2)
    #expect(try tool.chronicle("join", b, "chronicle-invitation-v2:AAAA").status == 2)
    #expect(try tool.chronicle("invite", a, "--role", "owner").status != 0)

    // b's join and a note reach a through a bundle; a's member list has both.
    _ = try tool.chronicle("sql", b, "INSERT INTO notes VALUES (1, 'from b')")
    let bundle = directory.appendingPathComponent("b.chrb").path
    #expect(try tool.chronicle("export", b, "--out", bundle).status == 0)
    let imported = try tool.chronicle("import", a, bundle)
    #expect(imported.status == 0, "\(imported.errors)")
    let members = try tool.chronicle("members", a, "--json")
    let listed = try #require(try JSONSerialization.jsonObject(with: Data(members.output.utf8)) as? [[String: Any]])
    #expect(listed.map { $0["admission"] as? String } == ["founder", "invitation"])
    #expect(listed.map { $0["role"] as? String } == ["admin", "writer"])
    let bID = try #require(listed.last?["device"] as? String)
    #expect(try tool.chronicle("members", a).output.contains("\(bID)  writer  invitation by "))

    // Roles: b made a reader, then a writer again; a reader's writes fail on b itself.
    // (Its note, which a holds, stays a write: the demotion names it.)
    #expect(try tool.chronicle("role", a, bID, "reader").status == 0)
    let demoted = try tool.chronicle("members", a).output
    #expect(demoted.contains("\(bID)  reader  invitation by ") && demoted.contains("writes through :"), "\(demoted)")
    let demotedJSON = try #require(
      try JSONSerialization.jsonObject(with: Data(try tool.chronicle("members", a, "--json").output.utf8)) as? [[String: Any]])
    #expect((demotedJSON.last?["demotedAfterSequence"] as? Int ?? 0) > 0, "\(demotedJSON)")
    #expect(try tool.chronicle("role", a, bID, "owner").status != 0)
    #expect(try tool.chronicle("role", b, bID, "admin").status == 2)  // b is no admin
    #expect(try tool.chronicle("role", a, bID, "writer").status == 0)
    #expect(try !tool.chronicle("members", a).output.contains("writes through"))

    // Revoked: b's later event is refused (exit 1), naming b and the reason,
    // and `chronicle refused` lists it.
    #expect(try tool.chronicle("revoke", a, bID).status == 0)
    #expect(try tool.chronicle("members", a).output.contains("REVOKED"))
    _ = try tool.chronicle("sql", b, "INSERT INTO notes VALUES (2, 'after revocation')")
    #expect(try tool.chronicle("export", b, "--out", bundle).status == 0)
    let refused = try tool.chronicle("import", a, bundle)
    #expect(refused.status == 1, "\(refused.output) \(refused.errors)")
    #expect(refused.errors.contains("device \(bID)") && refused.errors.contains("revoked"), "\(refused.errors)")
    #expect(refused.errors.contains("chronicle refused \(a) lists them"), "\(refused.errors)")
    let notes = try Chronicle.open(path: a).read { db in try String.fetchAll(db, sql: "SELECT body FROM notes ORDER BY id") }
    #expect(notes == ["from b"])
    let listing = try tool.chronicle("refused", a)
    #expect(listing.status == 0 && listing.output.contains("\(bID):") && listing.output.contains("settled")
      && listing.output.contains("revoked") && listing.output.contains("1 refused events"), "\(listing.output) \(listing.errors)")
    let json = try tool.chronicle("refused", a, "--json")
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
    #expect(entries.count == 1 && entries[0]["origin"] as? String == bID && entries[0]["settled"] as? Bool == true && entries[0]["source"] as? String == bundle)
    // Settled, it counts as held: the same bundle again is nothing new.
    let again = try tool.chronicle("import", a, bundle)
    #expect(again.status == 0 && again.output.contains("merged 0 events") && !again.errors.contains("refused"), "\(again.output) \(again.errors)")
    // For a script: one JSON object on stdout, refusals in it, and exit 1.
    _ = try tool.chronicle("sql", b, "INSERT INTO notes VALUES (3, 'later still')")
    #expect(try tool.chronicle("export", b, "--out", bundle).status == 0)
    let scripted = try tool.chronicle("import", a, bundle, "--json")
    #expect(scripted.status == 1, "\(scripted.output) \(scripted.errors)")
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(scripted.output.utf8)) as? [String: Any])
    #expect(summary["transport"] as? String == "bundle" && summary["address"] as? String == bundle)
    #expect(summary["appliedEvents"] as? Int == 0 && (summary["duplicateEvents"] as? Int ?? 0) > 0, "\(summary)")
    let refusals = try #require(summary["refused"] as? [[String: Any]])
    #expect(refusals.count == 1 && refusals[0]["origin"] as? String == bID && refusals[0]["settled"] as? Bool == true, "\(refusals)")
    #expect((refusals.first?["reason"] as? String)?.contains("revoked") == true, "\(refusals)")
    let verified = try tool.chronicle("verify", a)
    #expect(verified.status == 0, "\(verified.output) \(verified.errors)")
  }
}
