import Chronicle
import Crypto
import Foundation

/// A concurrent edit that lost, and where its content was kept.
public struct ConflictCopy: Sendable, Equatable {
  public var path: String
  public var copyPath: String
  public var losingPeer: String
}

extension SyncedFolder {
  /// Finds concurrent versions that lost the last-write-wins race for their
  /// path and keeps each losing content as a conflict copy beside it:
  /// `name (conflict from PEER at TIME).ext`. Nothing is lost.
  ///
  /// A version lost when it has no successor (no version names it as base),
  /// is not its path's current version, holds content (a losing deletion
  /// needs no copy) and that content differs from the winner's. The copy's
  /// version id, name and fields derive from the losing version alone, so
  /// every peer that detects the same conflict records the same row.
  /// Paths with a version whose base has not arrived yet wait for it.
  @discardableResult
  public func resolveConflicts() throws -> [ConflictCopy] {
    try database.write { db in
      let losers = try #sql(
        """
        SELECT \(FileVersion.columns) FROM \(FileVersion.self)
        JOIN \(FileEntry.self) ON \(FileEntry.columns.path) = \(FileVersion.columns.path)
        WHERE \(FileVersion.columns.id) <> \(FileEntry.columns.versionID)
          AND \(FileVersion.columns.contentHash) IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM fileVersions AS successor WHERE successor.base = \(FileVersion.columns.id))
          AND NOT EXISTS (SELECT 1 FROM conflicts WHERE conflicts.versionID = \(FileVersion.columns.id))
          AND NOT EXISTS (
            SELECT 1 FROM fileVersions AS other
            WHERE other.path = \(FileVersion.columns.path) AND other.base IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM fileVersions AS known WHERE known.id = other.base))
        ORDER BY \(FileVersion.columns.path), \(FileVersion.columns.recordedAt)
        """,
        as: FileVersion.self
      ).fetchAll(db)
      guard !losers.isEmpty else { return [] }
      let current = try currentVersions(db)
      var copies: [ConflictCopy] = []
      for loser in losers {
        guard let winner = current[loser.path], winner.contentHash != loser.contentHash else {
          // Same content as the winner: nothing to keep.
          try ConflictRecord.insert(or: .ignore) { ConflictRecord(versionID: loser.id, copyPath: loser.path) }.execute(db)
          continue
        }
        let copyPath = Self.conflictCopyPath(for: loser)
        try ConflictRecord.insert(or: .ignore) { ConflictRecord(versionID: loser.id, copyPath: copyPath) }.execute(db)
        let copy = FileVersion(
          id: Self.conflictCopyID(of: loser.id), path: copyPath, change: .conflictCopy, detail: loser.id.uuidString.lowercased(),
          contentHash: loser.contentHash, size: loser.size, modifiedAt: loser.modifiedAt, base: current[copyPath]?.id,
          peer: loser.peer, peerName: loser.peerName, recordedAt: loser.recordedAt)
        if try FileVersion.find(copy.id).fetchOne(db) == nil {
          try record([copy], contents: [], db)
        }
        copies.append(ConflictCopy(path: loser.path, copyPath: copyPath, losingPeer: loser.peerName))
      }
      return copies
    }
  }

  /// `dir/name (conflict from PEER at 2026-11-21 14.03.22).ext`, in UTC.
  static func conflictCopyPath(for loser: FileVersion) -> String {
    let slash = loser.path.lastIndex(of: "/")
    let folder = slash.map { String(loser.path[...$0]) } ?? ""
    let file = slash.map { String(loser.path[loser.path.index(after: $0)...]) } ?? loser.path
    let dot = file.lastIndex(of: ".").flatMap { $0 == file.startIndex ? nil : $0 }
    let stem = dot.map { String(file[..<$0]) } ?? file
    let ext = dot.map { String(file[$0...]) } ?? ""
    let peer = String(
      loser.peerName.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || " ._-".unicodeScalars.contains($0) ? Character($0) : "_" }
        .prefix(64))
    let time = TimeFormat.fileName(milliseconds: loser.recordedAt)
    var suffix = " (conflict from \(peer) at \(time))"
    // Keep the name within 255 bytes.
    let budget = 255 - suffix.utf8.count - ext.utf8.count
    var shortStem = stem
    while shortStem.utf8.count > max(budget, 1) { shortStem.removeLast() }
    if budget < 1 { suffix = "" }
    return folder + shortStem + suffix + ext
  }

  /// The id of the copy of `loser`: the same on every peer.
  static func conflictCopyID(of loser: UUID) -> UUID {
    var bytes = Array(SHA256.hash(data: Array("filesync conflict copy \(loser.uuidString.lowercased())".utf8)).prefix(16))
    bytes[6] = (bytes[6] & 0x0F) | 0x50
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
  }
}

/// Times as filesync shows them.
enum TimeFormat {
  /// `2026-11-21 14.03.22` (UTC; no colons, which some systems refuse in names).
  static func fileName(milliseconds: Int) -> String {
    format(milliseconds, "yyyy-MM-dd HH.mm.ss")
  }

  /// `2026-11-21 14:03:22.123Z`.
  static func display(milliseconds: Int) -> String {
    format(milliseconds, "yyyy-MM-dd HH:mm:ss.SSS'Z'")
  }

  private static func format(_ milliseconds: Int, _ pattern: String) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = pattern
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}
