import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Replay to a point, partial and lenient replays, and the read-only archive.
@Suite("Replay tools: replay to a point")
struct ReplayToolsTests {
  /// Two peers write at random and sync now and then; after every write and
  /// every merge, peer A's digests are recorded with its last log position.
  /// A replay of A's log until each recorded position must give that state.
  @Test(arguments: [7, 11, 2026] as [UInt64])
  func replayUntilEveryPointOfASyncedRandomHistory(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 2)
    var states: [(position: Int64, digests: [TableDigest])] = []
    func record() throws {
      let position = try a.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM chronicle_events") ?? 0 }
      if states.last?.position != position { states.append((position, try a.digests())) }
    }
    try record()
    for _ in 0..<120 {
      clock.advance(by: UInt64.random(in: 0...3, using: &random))
      switch Int.random(in: 0..<10, using: &random) {
      case 0: try push(b, to: a)
      case 1: try push(a, to: b)
      case 2...5: try ConvergenceTests().randomWrite(b, &random)
      default: try ConvergenceTests().randomWrite(a, &random)
      }
      try record()
    }
    #expect(try a.log.events().contains { $0.event.origin == b.peerID }, "seed \(seed): A never received anything")
    for (position, digests) in states {
      let report = try a.replay(
        into: directory.path("a-\(position).sqlite"), options: ReplayOptions(until: .position(position), keepsLog: false))
      #expect(report.digests == digests, "seed \(seed): the replay until #\(position) differs from the state recorded there")
    }
  }

  @Test func replayUntilATimeTakesEveryEventUpToThatClockReading() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let database = try openSyncPeer(directory, name: "time.sqlite", clock: clock)
    var states: [(HLCTimestamp, [TableDigest])] = []
    for step in 1...6 {
      clock.advance(by: 1000)
      let (_, event) = try database.writeReturningEvent { db in
        try db.execute(sql: "INSERT OR REPLACE INTO lists (id, name) VALUES (?, ?)", arguments: [step % 4, "step \(step)"])
      }
      states.append((try #require(event).event.timestamp, try database.digests()))
    }
    for (index, (time, digests)) in states.enumerated() {
      let report = try database.replay(into: directory.path("t\(index).sqlite"), options: ReplayOptions(until: .time(time)))
      #expect(report.digests == digests, "state at \(time)")
      // As the tools print times, and parsed back.
      #expect(try HistoryPoint.parse(time.description, in: database.log) == .time(time))
    }
  }

  @Test func historyPointsParseEventsAndTimesAndRefuseTheRest() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l1')") }
    #expect(try HistoryPoint.parse("2", in: database.log) == .position(2))
    #expect(try HistoryPoint.parse("\(database.peerID.shortDescription):2", in: database.log) == .position(2))
    guard case .time(let day) = try HistoryPoint.parse("2026-11-21", in: database.log) else {
      Issue.record("a day is a time")
      return
    }
    #expect(day.description.hasPrefix("2026-11-21T23:59:59.999Z"))
    guard case .time(let exact) = try HistoryPoint.parse("2026-11-21T10:00:00Z", in: database.log) else {
      Issue.record("an ISO time is a time")
      return
    }
    #expect(exact == HLCTimestamp(milliseconds: 1_795_255_200_000, counter: 0))
    #expect(throws: ChronicleError.invalidHistoryPoint("yesterday")) { try HistoryPoint.parse("yesterday", in: database.log) }
    #expect(throws: ChronicleError.noSuchEvent("99")) { try HistoryPoint.parse("99", in: database.log) }
  }

  @Test func aPartialReplayKeepsTheTablesAskedForAndTheirParents() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT) STRICT")
      try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home')")
      try db.execute(sql: "INSERT INTO reminders (title, listID) VALUES ('Milk', 'l1'), ('Eggs', 'l1')")
      try db.execute(sql: "INSERT INTO notes (body) VALUES ('x')")
    }
    let report = try database.replay(into: directory.path("partial.sqlite"), options: ReplayOptions(tables: ["reminders"]))
    #expect(report.digests.map(\.table) == ["reminders", "remindersLists"])
    #expect(report.digests == (try database.digests(tables: ["reminders", "remindersLists"])))
    let leftovers = try DatabaseQueue(path: directory.path("partial.sqlite")).read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'chronicle%'")
    }
    #expect(leftovers.isEmpty, "a partial replay holds only tables")
  }

  @Test func aReplayedFileIsAChronicleDatabaseThatOpensWithoutLoggingAnything() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try database.write { db in
      try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home')")
      try db.execute(sql: "INSERT INTO reminders (title, listID) VALUES ('Milk', 'l1')")
    }
    try database.write { db in try db.execute(sql: "DELETE FROM reminders") }
    try database.replay(into: directory.path("copy.sqlite"))
    let copy = try Chronicle.open(path: directory.path("copy.sqlite"))
    #expect(copy.peerID == database.peerID)
    #expect(try copy.log.count() == database.log.count())
    #expect(try copy.digests() == database.digests())
    #expect(try copy.trackedTables == database.trackedTables)
  }

  /// Appends a forged local event that deletes a row that is not there,
  /// through a plain connection (the database must be closed).
  private func appendImpossibleDelete(_ path: String, peer: PeerID) throws -> Int64 {
    try plainConnection(path).write { db in
      let position = try LocalLogPosition.read(db, origin: peer)
      let event = ChangeEvent(
        origin: peer, sequence: position.nextSequence, timestamp: try LocalLogPosition.latestClock(db), schemaEpoch: position.schemaEpoch,
        tables: [TableDescriptor(name: "reminders", columns: ["id", "title", "notes", "isCompleted", "priority", "attachment", "listID"], primaryKey: [0])],
        operations: [.delete(table: 0, key: [.integer(424242)])])
      return try EventAppender.insert(db, event: event, encoded: EventCodec.encode(event), rows: .unknown)
    }
  }

  @Test func aStrictReplayStopsAtAnEventItCannotApplyAndLeavesNoFile() throws {
    let directory = try TemporaryDirectory()
    var bad: Int64 = 0
    do {
      let database = try makeDatabase(directory)
      try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l1')") }
      bad = try appendImpossibleDelete(database.path, peer: database.peerID)
    }
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l2')") }
    let path = directory.path("strict.sqlite")
    do {
      try database.replay(into: path)
      Issue.record("the replay went through an impossible delete")
    } catch let ChronicleError.replayFailed(event, reason) {
      #expect(event == "\(database.peerID.shortDescription):\(bad)")
      #expect(reason.contains("424242") && reason.contains("found no row"), "\(reason)")
    }
    #expect(!FileManager.default.fileExists(atPath: path))

    let lenient = try database.replay(into: path, options: ReplayOptions(isStrict: false))
    #expect(lenient.failures.map(\.position) == [bad])
    #expect(lenient.eventCount == (try database.log.count()) - 1)
    #expect(lenient.digests == (try database.digests()))
  }

  @Test func anArchiveReadsWithoutChangingTheFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("archive.sqlite")
    do {
      let database = try makeDatabase(directory, name: "archive.sqlite")
      try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l1')") }
    }
    // A table created behind Chronicle's back: Chronicle.open would log it.
    let plain = try plainConnection(path)
    try plain.write { db in try db.execute(sql: "CREATE TABLE later (id INTEGER PRIMARY KEY) STRICT") }
    // Everything into the file now: the last connection to close checkpoints
    // what the WAL holds, and Chronicle's may close after `before` is read.
    _ = try plain.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let archive = try ChronicleArchive(path: path)
    #expect(try archive.log.count() == 2)
    #expect(try archive.digests(tables: ["remindersLists"]).first?.rowCount == 1)
    _ = try archive.verify()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

    #expect(throws: ChronicleError.noSuchFile(directory.path("missing.sqlite"))) {
      try ChronicleArchive(path: directory.path("missing.sqlite"))
    }
    try DatabaseQueue(path: directory.path("plain.sqlite")).write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
    #expect(throws: ChronicleError.notAChronicleDatabase(directory.path("plain.sqlite"))) {
      try ChronicleArchive(path: directory.path("plain.sqlite"))
    }
  }
}
