import Foundation
import GRDB

/// How much of the log the merge state has read ("folded"): every event
/// through a log position, and past it, ranges of this peer's own events
/// folded ahead of older ones.
///
/// Folding is a join: a column keeps its latest version, a row its latest
/// delete, whatever order the events come in. So a merge whose oldest
/// received write is at clock `t` needs only this peer's events from `t`
/// on: older local writes lose to every write it merges, and it merges
/// ahead of them (``MergeApplier/mergesAheadOfLocalHistory``). A peer's
/// clock only moves forward, so those events are the end of its sequence:
/// what a merge folds grows with the local history as new as what it
/// receives, not with the whole history.
struct FoldMarks: Equatable {
  /// Every event at a log position up to this one is folded (0: none).
  var through: Int64 = 0
  /// This peer's sequences folded past ``through``: in order, apart, and
  /// none adjacent to another.
  var ownSequences: [ClosedRange<UInt64>] = []

  static func read(_ db: Database) throws -> FoldMarks {
    let meta = ChronicleMeta(db: db)
    return FoldMarks(
      through: try meta.value(.mergeFoldedThrough) ?? 0,
      ownSequences: try meta.value(.ownFoldedPastMark).map(Self.parse) ?? [])
  }

  /// Saves the ranges of own sequences (the mark itself moves through
  /// ``MergeApplier/setFoldMark(_:caughtUp:)``).
  func saveOwnSequences(_ db: Database) throws {
    let meta = ChronicleMeta(db: db)
    if ownSequences.isEmpty {
      try meta.remove(.ownFoldedPastMark)
    } else {
      try meta.set(.ownFoldedPastMark, to: ownSequences.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","))
      // Received events past the mark are in merge state (a merge folds its
      // own history ahead only to merge ahead of the rest): a fold reads
      // only this peer's events from now on.
      try meta.set(.receivedMergedPastFoldMark, to: 1)
    }
  }

  private static func parse(_ text: String) -> [ClosedRange<UInt64>] {
    text.split(separator: ",").compactMap { part in
      let bounds = part.split(separator: "-").compactMap { UInt64($0) }
      return bounds.count == 2 && bounds[0] <= bounds[1] ? bounds[0]...bounds[1] : nil
    }
  }

  /// Adds `folded` to the own sequences folded past the mark.
  mutating func noteFolded(_ folded: ClosedRange<UInt64>) {
    var merged = folded
    var kept: [ClosedRange<UInt64>] = []
    for range in ownSequences {
      if range.upperBound &+ 1 < merged.lowerBound || merged.upperBound &+ 1 < range.lowerBound {
        kept.append(range)
      } else {
        merged = min(range.lowerBound, merged.lowerBound)...max(range.upperBound, merged.upperBound)
      }
    }
    kept.append(merged)
    ownSequences = kept.sorted { $0.lowerBound < $1.lowerBound }
  }

  /// `sequences` without those folded past the mark, in order.
  func unfolded(_ sequences: ClosedRange<UInt64>) -> [ClosedRange<UInt64>] {
    var left: [ClosedRange<UInt64>] = []
    var next = sequences.lowerBound
    for range in ownSequences where range.upperBound >= next && range.lowerBound <= sequences.upperBound {
      if range.lowerBound > next { left.append(next...(range.lowerBound - 1)) }
      guard range.upperBound < sequences.upperBound else { return left }
      next = range.upperBound + 1
    }
    left.append(next...sequences.upperBound)
    return left
  }

  // MARK: - This peer's events not folded

  /// This peer's events the merge state has not folded (nil: none), in
  /// ranges of its sequences, with the latest one's clock.
  func unfoldedOwnEvents(_ db: Database, local: PeerID) throws -> UnfoldedOwnEvents? {
    guard let first = try OriginEvents.first(db, origin: local, from: 1, where: { $0.position > through }) else { return nil }
    let sequences = unfolded(first.sequence...(try EventLog.lastSequence(db, origin: local)))
    guard let newest = sequences.last,
          let latest = try OriginEvents.atOrAfter(db, origin: local, sequence: newest.upperBound) else { return nil }
    return UnfoldedOwnEvents(first: first, sequences: sequences, latest: latest.timestamp)
  }
}

/// This peer's events not folded into merge state.
struct UnfoldedOwnEvents {
  /// The first of them.
  var first: OriginEvents.Event
  /// Their sequences, in ranges, oldest first.
  var sequences: [ClosedRange<UInt64>]
  /// The latest one's clock (none of them is later: a peer's clock only
  /// moves forward).
  var latest: HLCTimestamp

  /// Their log positions, a range per range of sequences (events of other
  /// peers may sit between them).
  func positions(_ db: Database, local: PeerID) throws -> [ClosedRange<Int64>] {
    try OriginEvents.positions(db, origin: local, sequences: sequences)
  }
}

/// Lookups among one peer's events through the log's `(origin, sequence)`
/// index.
enum OriginEvents {
  struct Event {
    var sequence: UInt64
    var position: Int64
    var timestamp: HLCTimestamp
  }

  /// The log positions of `origin`'s events in each range of `sequences`,
  /// from its first to its last (events of other origins may sit between);
  /// a range whose ends the log no longer holds (compacted) is left out.
  static func positions(_ db: Database, origin: PeerID, sequences: [ClosedRange<UInt64>]) throws -> [ClosedRange<Int64>] {
    try sequences.compactMap { range in
      guard let low = try EventLog.position(db, origin: origin, sequence: range.lowerBound),
            let high = try EventLog.position(db, origin: origin, sequence: range.upperBound) else { return nil }
      return low...high
    }
  }

  /// `origin`'s first event at sequence `low` or later.
  static func atOrAfter(_ db: Database, origin: PeerID, sequence low: UInt64) throws -> Event? {
    try Row.fetchOne(
      db.cachedStatement(sql: "SELECT sequence, id, hlc FROM main.chronicle_events WHERE origin = ? AND sequence >= ? ORDER BY sequence LIMIT 1"),
      arguments: [Data(origin.bytes), Int64(clamping: low)]
    ).map { row in
      Event(sequence: UInt64(row[0] as Int64), position: row[1], timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: row[2])))
    }
  }

  /// `origin`'s first event from sequence `low` on for which `holds` is
  /// true, found by bisection: once it holds for one event it must hold for
  /// every later one (as for a position or a clock past a given one).
  static func first(_ db: Database, origin: PeerID, from low: UInt64, where holds: (Event) -> Bool) throws -> Event? {
    var low = max(low, 1)
    var high = try EventLog.lastSequence(db, origin: origin)
    var found: Event?
    while low <= high {
      let middle = low + (high - low) / 2
      guard let event = try atOrAfter(db, origin: origin, sequence: middle), event.sequence <= high else {
        high = middle - 1  // none in middle...high
        continue
      }
      if holds(event) {
        found = event
        high = middle - 1
      } else {
        low = event.sequence + 1
      }
    }
    return found
  }
}
