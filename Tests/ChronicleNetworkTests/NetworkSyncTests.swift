import Chronicle
import Crypto
import Foundation
import NIOCore
import NIOPosix
import ChronicleTestSupport
import Synchronization
import Testing

@testable import ChronicleNetwork

@Suite("TCP sync between peers on loopback")
struct NetworkSyncTests {
  @Test func twoPeersConvergeAndASecondSyncMovesNothing() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    try writeItems(server, from: 1, count: 30)
    try writeItems(client, from: 1_000, count: 20, perEvent: 5)
    try await client.write { db in try db.execute(sql: "UPDATE items SET count = 7 WHERE id = 1000") }
    let configuration = testConfiguration(key: .generate())

    try await withServer(server, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration)
      let first = try await transport.sync(client)
      #expect(first.remotePeer == server.peerID)
      #expect(first.sentEvents == 6 && first.remoteApplied == 6)  // schema + 4 inserts + 1 update
      #expect(first.received.appliedEvents == 31)  // schema + 30 inserts
      #expect(try server.itemDigest() == client.itemDigest())
      #expect(try server.versionVector() == client.versionVector())

      let second = try await transport.sync(client)
      #expect(second.sentEvents == 0 && second.received.appliedEvents == 0 && second.received.duplicateEvents == 0)
    }
  }

  @Test func aSyncEngineUsesOneConnectionForBothDirections() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    try writeItems(server, from: 1, count: 3)
    try writeItems(client, from: 10, count: 4)
    let logs = LogRecorder()
    let configuration = testConfiguration(key: .generate(), logs: logs)
    try await withServer(server, configuration: configuration) { running in
      let engine = SyncEngine(for: client, transport: .tcp(host: "127.0.0.1", port: running.port, configuration: configuration))
      let report = try await engine.syncChanges()
      #expect(report.merged.appliedEvents == 4)
      #expect(try server.itemDigest() == client.itemDigest())
    }
    #expect(logs.messages(atLeast: .info).filter { $0.hasPrefix("session done") }.count == 1)
  }

  @Test func aPeerWithTheWrongKeyIsRefusedAndNothingMoves() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    try writeItems(server, from: 1, count: 5)
    try writeItems(client, from: 100, count: 5)
    let before = (try server.fingerprint(), try client.fingerprint())
    let logs = LogRecorder()
    try await withServer(server, configuration: testConfiguration(key: .generate(), logs: logs)) { running in
      let intruder = TCPTransport(host: "127.0.0.1", port: running.port, configuration: testConfiguration(key: .generate()))
      let error = await #expect(throws: NetworkSyncError.self) { try await intruder.sync(client) }
      guard case .refusedByPeer(_, let message) = error else { Issue.record("unexpected \(String(describing: error))"); return }
      #expect(message.contains("authentication failed"))
    }
    #expect(try server.fingerprint() == before.0)
    #expect(try client.fingerprint() == before.1)
    #expect(logs.messages(atLeast: .warning).contains { $0.contains("did not prove it holds the group's key") })
  }

  @Test func onlyAllowedPeersGetIn() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), allowed = try makePeer(directory, "allowed"), other = try makePeer(directory, "other")
    var configuration = testConfiguration(key: .generate())
    configuration.allowedPeers = [allowed.peerID]
    try await withServer(server, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration)
      _ = try await transport.sync(allowed)
      let error = await #expect(throws: NetworkSyncError.self) { try await transport.sync(other) }
      #expect("\(String(describing: error))".contains("not allowed"))
    }
  }

  @Test func aFileCopyOfTheServerIsToldToClone() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try copyFile(of: server, to: directory.path("copy.sqlite"))
    let copy = try Chronicle.open(path: directory.path("copy.sqlite"))
    let configuration = testConfiguration(key: .generate())
    try await withServer(server, configuration: configuration) { running in
      let error = await #expect(throws: NetworkSyncError.self) {
        try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(copy)
      }
      #expect("\(String(describing: error))".contains("chronicle clone"))
    }
  }

  @Test func eventsForgedInTheServersNameAreRefusedAndTheRestApplies() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 3)
    // A file copy of the server, key file included, writes events in the
    // server's name; a hostile peer relays them along with its own.
    try copyFile(of: server, to: directory.path("copy.sqlite"))
    try FileManager.default.copyItem(
      atPath: directory.path("server.sqlite") + "-device.key", toPath: directory.path("copy.sqlite") + "-device.key")
    let copy = try Chronicle.open(path: directory.path("copy.sqlite"))
    try await copy.write { db in try db.execute(sql: "UPDATE items SET title = 'forged' WHERE id = 1") }
    let hostile = try makePeer(directory, "hostile")
    try writeItems(hostile, from: 50, count: 2)
    _ = try await MemoryTransport(peer: copy).fetch(into: hostile)
    let before = try server.fingerprint()
    let logs = LogRecorder()
    let configuration = testConfiguration(key: .generate(), logs: logs)
    try await withServer(server, configuration: configuration) { running in
      _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).send(from: hostile)
    }
    #expect(try server.fingerprint() != before)
    #expect(try await server.read { db in try String.fetchAll(db, sql: "SELECT title FROM items WHERE id IN (1, 50, 51) ORDER BY id") }.count == 3)
    #expect(try await server.read { db in try String.fetchOne(db, sql: "SELECT title FROM items WHERE id = 1") } != "forged")
    let refused = try server.refusedEvents()
    #expect(refused.count == 1 && refused[0].origin == server.peerID && refused[0].reason.contains("claims to come from this peer"), "\(refused)")
    #expect(logs.messages(atLeast: .warning).contains { $0.contains("refused events") })
  }

  /// With a group key file, and without one (``SyncKey/groupMembersOnly``:
  /// the members proven by their device keys alone).
  @Test(arguments: [false, true])
  func aServerInAGroupAdmitsItsMembersOnlyAndRefusesARevokedDevicesEvents(withoutKeyFile: Bool) async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    let member = try makePeer(directory, "member")
    let revoked = try makePeer(directory, "revoked")
    let outsider = try makePeer(directory, "outsider")
    try server.createGroup()
    try member.join(try server.invite())
    try revoked.join(try server.invite())
    // Without a key file, a device in no group cannot sync at all: the
    // outsider has a group of its own.
    if withoutKeyFile { try outsider.createGroup() }
    let logs = LogRecorder()
    let configuration = testConfiguration(key: withoutKeyFile ? .groupMembersOnly : .generate(), logs: logs)
    try await withServer(server, configuration: configuration) { running in
      func transport() -> TCPTransport { TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration) }
      // Members sync; the server learns of them from their join events, which
      // travel only once they are admitted: the first sync of each is a push
      // of its join, admitted because its invitation is the server's.
      _ = try await transport().sync(member)
      _ = try await transport().sync(revoked)
      try writeItems(revoked, from: 1, count: 2)
      _ = try await transport().sync(revoked)
      #expect(try await server.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 2)

      // A device outside the group (holding the group key, if there is one) is refused at the handshake.
      let refused = await #expect(throws: NetworkSyncError.self) { try await transport().sync(outsider) }
      #expect("\(String(describing: refused))".contains("not a member"))
      if withoutKeyFile {
        let unkeyed = try makePeer(directory, "unkeyed")
        let noGroup = await #expect(throws: NetworkSyncError.self) { try await transport().sync(unkeyed) }
        #expect(noGroup == .keyFileNeeded(unkeyed.path))
      }

      // Revoked: its later events are refused, directly and relayed by a member.
      try server.revoke(revoked.peerID)
      try writeItems(revoked, from: 10, count: 1)
      let again = await #expect(throws: NetworkSyncError.self) { try await transport().sync(revoked) }
      #expect("\(String(describing: again))".contains("revoked"))
      _ = try await MemoryTransport(peer: revoked).fetch(into: member)  // the member has not heard of the revocation yet
      let before = try server.fingerprint()
      _ = try await transport().send(from: member)
      #expect(try server.fingerprint() == before)
      #expect(try server.refusedEvents().contains { $0.origin == revoked.peerID && $0.reason.contains("revoked") && $0.settled })
    }
    // With a key file the server refuses the outsider and logs it; without
    // one the outsider's own side refuses first (the server is no member of
    // the outsider's group), so the server hears nothing from it to log.
    if !withoutKeyFile {
      #expect(logs.messages(atLeast: .warning).contains { $0.contains("not a member") })
    }
  }

  /// A revoked device that keeps serving (the group key in hand) gets
  /// nothing from the members whose sync still points at it: a client checks
  /// the server's device and membership as the server checks the client's.
  /// And a device that is not a member learns nothing of the group's vector
  /// but its own entry.
  @Test func aRevokedServerGetsNothingFromTheMembersThatStillPointAtIt() async throws {
    let directory = try TemporaryDirectory()
    let admin = try makePeer(directory, "admin")
    let member = try makePeer(directory, "member")
    let revoked = try makePeer(directory, "revoked")
    try admin.createGroup()
    try member.join(try admin.invite())
    try revoked.join(try admin.invite())
    let configuration = testConfiguration(key: .generate())
    try await withServer(admin, configuration: configuration) { running in
      func transport() -> TCPTransport { TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration) }
      for device in [member, revoked, member] { _ = try await transport().sync(device) }
      try admin.revoke(revoked.peerID)
      _ = try await transport().sync(member)  // the member learns of the revocation
    }
    #expect(try member.members().first { $0.device == revoked.peerID }?.isActive == false)
    try writeItems(member, from: 500, count: 3)
    let before = try revoked.fingerprint()
    try await withServer(revoked, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration)
      let refused = await #expect(throws: NetworkSyncError.self) { try await transport.sync(member) }
      #expect("\(String(describing: refused))".contains("revoked"), "\(String(describing: refused))")
    }
    #expect(try revoked.fingerprint() == before)
    #expect(try await revoked.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE id >= 500") } == 0)

    // A stranger with the group key asks the admin for its vector: it gets its own entry only.
    let stranger = try makePeer(directory, "stranger")
    try await withServer(admin, configuration: configuration) { running in
      try await withAuthenticatedSession(port: running.port, as: stranger, configuration: configuration) { connection in
        try await connection.send(.vectorRequest)
        let answer = try await connection.receive("its version vector", within: configuration.frameTimeout)
        guard case .vector(let vector, _) = answer else {
          Issue.record("expected a vector, got \(answer)")
          return
        }
        #expect(vector.sequences.isEmpty || Set(vector.sequences.keys) == [stranger.peerID], "\(vector)")
        try await connection.send(.bye)
      }
    }
  }

  /// A server without a key file whose database leaves its group while it
  /// runs (its local data deleted) admits no one from then on: an attacker
  /// who knows the public constant that stands for the key, claiming a
  /// device in no group, is refused at its hello.
  @Test func aServerWithoutAKeyFileWhoseDatabaseLeftItsGroupAdmitsNoOne() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 3)
    try server.createGroup()
    let stranger = try makePeer(directory, "stranger")
    // The attacker's side skips its own checks: the constant, unflagged.
    let constant = SyncKey(bytes: Array(SHA256.hash(data: Array("chronicle-sync group members only v1".utf8))))
    let attacker = patientConfiguration(key: constant)
    try await withServer(server, configuration: patientConfiguration(key: .groupMembersOnly)) { running in
      try server.deleteLocalData()
      try writeItems(server, from: 10, count: 2)
      let refused = await #expect(throws: NetworkSyncError.self) {
        _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: attacker).sync(stranger)
      }
      #expect("\(String(describing: refused))".contains("in no group"), "\(String(describing: refused))")
    }
    #expect(try await stranger.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 0)
  }

  @Test func twentyPeersAtOnceEachGetTheRightResult() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 40)
    let peers = try (1...20).map { index in
      let peer = try makePeer(directory, "peer\(index)")
      try writeItems(peer, from: index * 1_000, count: 25, perEvent: 5)
      return peer
    }
    let serverRowsBefore = try await server.read { db in try Set(Int.fetchAll(db, sql: "SELECT id FROM items")) }
    let configuration = testConfiguration(key: .generate())
    try await withServer(server, configuration: configuration) { running in
      let reports = try await withThrowingTaskGroup(of: (Int, NetworkSyncReport).self) { group in
        for (index, peer) in peers.enumerated() {
          group.addTask { (index, try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(peer)) }
        }
        return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
      }
      for (index, peer) in peers.enumerated() {
        #expect(reports[index]?.sentEvents == 6 && reports[index]?.remoteApplied == 6)
        // Each peer has at least the server's rows and its own, and only rows that exist somewhere.
        let rows = try await peer.read { db in try Set(Int.fetchAll(db, sql: "SELECT id FROM items")) }
        let own = Set((index + 1) * 1_000..<(index + 1) * 1_000 + 25)
        #expect(rows.isSuperset(of: serverRowsBefore.union(own)), "peer \(index + 1)")
      }
      let serverRows = try await server.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") }
      #expect(serverRows == 40 + 20 * 25)
      // A second round, all at once again: everyone ends with everything.
      try await withThrowingDiscardingTaskGroup { group in
        for peer in peers {
          group.addTask { _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(peer) }
        }
      }
      let expected = try server.itemDigest()
      for peer in peers { #expect(try peer.itemDigest() == expected) }
    }
  }

  @Test func anInterruptedTransferResumesWithoutResendingWhatWasApplied() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    try writeItems(server, from: 1, count: 3_000)
    let total = try server.eventCount()
    var configuration = testConfiguration(key: .generate())
    configuration.frameBytes = 4 << 10
    configuration.applyBatchEvents = 200
    configuration.maxSendRate = 200 << 10  // ~1.5 s for the whole log: time to cut it
    try await withServer(server, configuration: configuration) { running in
      // The session cancels itself as soon as its first batch is applied
      // (from the progress callback, so no other task has to be scheduled in time).
      let session = Mutex<Task<FetchReport, any Error>?>(nil)
      let throttled = configuration, port = running.port
      let interrupted = Task {
        try await TCPTransport(host: "127.0.0.1", port: port, configuration: throttled) { progress in
          if progress.direction == .receiving { session.withLock { $0?.cancel() } }
        }.fetch(into: client)
      }
      session.withLock { $0 = interrupted }
      await #expect(throws: (any Error).self) { try await interrupted.value }
      let applied = try client.eventCount() - 1  // its own schema event
      #expect(applied >= 200 && applied < total, "the first session applied \(applied) of \(total) events")

      configuration.maxSendRate = nil
      let resumed = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).fetch(into: client)
      #expect(resumed.merged.appliedEvents == total - applied)
      #expect(resumed.merged.duplicateEvents == 0)
      #expect(try client.itemDigest() == server.itemDigest())
    }
  }

  /// A server offered events older than some of its history not folded
  /// into merge state, in a file without the index of rows each event
  /// changed, reads that history into merge state before it takes the
  /// first pushed event. It reports how far it is every
  /// `workingInterval`, and the client sees each report as progress (each
  /// one restarts its frame timeout); a server that waits longer between
  /// reports than the reading lasts sends none. (Timing the client out
  /// against a silent server proved machine-dependent: the reading of this
  /// history takes about a second in a debug build.)
  @Test func aServerPreparingItsFirstMergeReportsHowFarItIs() async throws {
    let directory = try TemporaryDirectory()
    let key = SyncKey.generate()
    // Long frame timeouts on both sides: under a full test run's load the
    // server's reading and the exchange around it can take minutes.
    var silent = testConfiguration(key: key)
    silent.workingInterval = .seconds(3_600)
    silent.frameTimeout = .seconds(300)
    var informative = testConfiguration(key: key)
    informative.workingInterval = .milliseconds(20)
    informative.frameTimeout = .seconds(300)
    for (name, configuration, reports) in [("silent", silent, false), ("informing", informative, true)] {
      // The client writes first: its events are older than the server's.
      let client = try makePeer(directory, "client of \(name)")
      try writeItems(client, from: 1_000_000, count: 1)
      let server = try makePeer(directory, name)
      try writeItems(server, from: 1, count: 60_000, perEvent: 20)
      try forgetRowTouches(directory, name)
      let history = try server.eventCount()
      let seen = Mutex<[NetworkSyncProgress]>([])
      // The silent server reads its history without a word: under a full
      // test run's load that can outlast the usual 10 s frame timeout (and
      // once took over 60 s beside the heavy relay suites).
      var clientConfiguration = testConfiguration(key: key)
      clientConfiguration.frameTimeout = .seconds(300)
      try await withServer(server, configuration: configuration) { running in
        let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: clientConfiguration) { progress in
          if progress.direction == .preparing { seen.withLock { $0.append(progress) } }
        }
        let report = try await transport.sync(client)
        #expect(report.remoteApplied == 2)  // its schema event and its row
      }
      // The client's own preparation (its two events) is reported too: only the server's have its history's total.
      let fromServer = seen.withLock { $0 }.filter { $0.totalEvents == history }
      let midway = fromServer.filter { $0.events > 0 && $0.events < history }
      #expect(midway.isEmpty != reports, "\(name): \(fromServer.map { "\($0.events)/\($0.totalEvents)" })")
      #expect(try client.itemDigest() == server.itemDigest())
    }
  }

  /// The first sync with a server whose whole history is older than the
  /// pushed events (a fresh server, a client that wrote since): the server
  /// merges them ahead of its history without reading it, so it prepares
  /// nothing and reports nothing, and its merge state holds the pushed rows
  /// alone until an older write needs the rest.
  @Test func aServerOfferedNewerEventsMergesWithoutPreparing() async throws {
    let directory = try TemporaryDirectory()
    let key = SyncKey.generate()
    var configuration = testConfiguration(key: key)
    configuration.workingInterval = .milliseconds(1)
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 20_000, perEvent: 20)
    let client = try makePeer(directory, "client")
    try writeItems(client, from: 1_000_000, count: 3)
    let seen = Mutex<[NetworkSyncProgress]>([])
    try await withServer(server, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration) { progress in
        if progress.direction == .preparing { seen.withLock { $0.append(progress) } }
      }
      let report = try await transport.sync(client)
      #expect(report.remoteApplied == 4)  // its schema event and its three rows
    }
    #expect(seen.withLock { $0 }.filter { $0.totalEvents > 10 }.isEmpty, "the server prepared: \(seen.withLock { $0 })")
    let (mergeStates, foldMark) = try await server.read { db in
      (try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM chronicle_rows) + (SELECT count(*) FROM chronicle_integer_rows)") ?? 0,
       try Int64.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = 'merge_folded_through'"))
    }
    #expect(mergeStates == 3 && foldMark == nil, "\(mergeStates) merge states, fold mark \(String(describing: foldMark))")
    #expect(try client.itemDigest() == server.itemDigest())
  }

  /// Offered events older than the server's last writes but newer than the
  /// rest of its history, the server reads into merge state only what they
  /// need, without preparing: the rows they write, as its own events from
  /// the oldest offered clock on left them; in a file without the index of
  /// rows each event changed, all its events from that clock on.
  @Test(arguments: [true, false])
  func aServerOfferedOlderEventsReadsOnlyTheHistoryTheyNeed(indexed: Bool) async throws {
    let directory = try TemporaryDirectory()
    let configuration = testConfiguration(key: .generate())
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 20_000, perEvent: 20)
    try await Task.sleep(for: .milliseconds(30))
    let client = try makePeer(directory, "client")
    try writeItems(client, from: 1_000_000, count: 1)
    try writeItems(client, from: 30_001, count: 1)  // a row the server writes later
    try await Task.sleep(for: .milliseconds(30))
    try writeItems(server, from: 30_000, count: 400)
    if !indexed { try forgetRowTouches(directory, "server") }
    // Whether the server prepares before it takes events as old as its first.
    #expect(try server.mergeNeedsPreparation(forEventsFrom: HLCTimestamp(rawValue: 0)) == !indexed)
    try await withServer(server, configuration: configuration) { running in
      let report = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(client)
      #expect(report.remoteApplied == 3)  // its schema event and its two rows
    }
    let (mergeStates, foldMark) = try await server.read { db in
      (try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM chronicle_rows) + (SELECT count(*) FROM chronicle_integer_rows)") ?? 0,
       try Int64.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = 'merge_folded_through'"))
    }
    // Indexed: the client's two rows. Otherwise the 400 later rows and the client's new one, not the 20,000 before.
    #expect(mergeStates == (indexed ? 2 : 401) && foldMark == nil, "\(mergeStates) merge states, fold mark \(String(describing: foldMark))")
    #expect(try client.itemDigest() == server.itemDigest())
  }

  @Test func aCompactedServerTellsThePeerToClone() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    try writeItems(server, from: 1, count: 5)
    try server.compact(before: server.versionVector())
    let configuration = testConfiguration(key: .generate())
    try await withServer(server, configuration: configuration) { running in
      let error = await #expect(throws: NetworkSyncError.self) {
        try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).fetch(into: client)
      }
      #expect("\(String(describing: error))".contains("chronicle clone"))
    }
  }
}
