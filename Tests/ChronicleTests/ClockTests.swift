import Synchronization
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Hybrid logical clock")
struct ClockTests {
  final class FakeWall: Sendable {
    let now = Mutex<UInt64>(1_000_000)
    func set(_ value: UInt64) { now.withLock { $0 = value } }
    var read: @Sendable () -> UInt64 { { self.now.withLock { $0 } } }
  }

  @Test func readingsStrictlyIncreaseWhenTheWallClockStands() {
    let wall = FakeWall()
    let clock = HybridLogicalClock(wallClock: wall.read)
    let readings = (0..<1000).map { _ in clock.now() }
    #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 < $1 })
    #expect(readings[0] == HLCTimestamp(milliseconds: 1_000_000, counter: 0))
  }

  @Test func wallClockGoingBackwardsNeverMovesTheClockBack() {
    let wall = FakeWall()
    let clock = HybridLogicalClock(wallClock: wall.read)
    let before = clock.now()
    wall.set(500_000)
    let after = clock.now()
    #expect(after > before)
    #expect(after.milliseconds == before.milliseconds)
  }

  @Test func restartsResumeAfterThePersistedReading() {
    let wall = FakeWall()
    let clock = HybridLogicalClock(lastReading: HLCTimestamp(milliseconds: 2_000_000, counter: 5), wallClock: wall.read)
    #expect(clock.now() == HLCTimestamp(milliseconds: 2_000_000, counter: 6))
  }

  @Test func counterOverflowBorrowsTheNextMillisecond() {
    let clock = HybridLogicalClock(lastReading: HLCTimestamp(milliseconds: 10, counter: .max), wallClock: { 10 })
    #expect(clock.now() == HLCTimestamp(milliseconds: 11, counter: 0))
  }

  @Test func remoteReadingsAdvanceTheClockWithinTheDriftBound() throws {
    let wall = FakeWall()
    let clock = HybridLogicalClock(maximumDrift: .seconds(60), wallClock: wall.read)
    let remote = HLCTimestamp(milliseconds: 1_030_000, counter: 3)
    try clock.receive(remote)
    #expect(clock.now() > remote)
    #expect(throws: ClockDriftError.self) { try clock.receive(HLCTimestamp(milliseconds: 1_000_000 + 61_000, counter: 0)) }
  }

  @Test func databaseEventsGetIncreasingTimestampsEvenWhenTheWallClockJumpsBack() throws {
    let directory = try TemporaryDirectory()
    let wall = FakeWall()
    wall.set(1_790_000_000_000)
    var configuration = ChronicleConfiguration()
    configuration.wallClock = wall.read
    let database = try Chronicle.open(path: directory.path("a.sqlite"), configuration: configuration)
    try database.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT") }
    wall.set(1_700_000_000_000)
    try database.write { db in try db.execute(sql: "INSERT INTO t VALUES (1, 'a')") }
    let reopened = try Chronicle.open(path: directory.path("a.sqlite"), configuration: configuration)
    try reopened.write { db in try db.execute(sql: "INSERT INTO t VALUES (2, 'b')") }
    let stamps = try reopened.log.events().map(\.event.timestamp)
    #expect(stamps == stamps.sorted())
    #expect(Set(stamps).count == stamps.count)
  }
}
