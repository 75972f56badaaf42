import Chronicle
import ChronicleNetwork
import Foundation

/// What one sync did, step by step.
public struct FileSyncReport: Sendable {
  public var scan = ScanReport()
  /// Index events sent to and merged from the peer.
  public var sentEvents = 0
  public var merged = MergeReport()
  /// Index files of the shared folder refused (forged, corrupt, damaged,
  /// misplaced), each with the reason; nothing of them was applied.
  public var rejected: [SyncError] = []
  /// Index files of the shared folder still arriving (taken at a later sync).
  public var incompleteSources: [String] = []
  /// Chunks sent to and received from the peer.
  public var sentChunks = BlobTransferReport()
  public var receivedChunks = BlobTransferReport()
  public var conflicts: [ConflictCopy] = []
  public var materialized = MaterializeReport()
}

extension SyncedFolder {
  /// Syncs through a folder every peer can reach (a network share, a USB
  /// stick, a folder synced by another tool): index events go to
  /// `shared/events` (Chronicle's ``DirectoryTransport``), chunks to
  /// `shared/chunks`. Scans first, materializes last.
  public func sync(through shared: URL) async throws -> FileSyncReport {
    try await exclusively {
      var report = FileSyncReport()
      report.scan = try scan()
      let sharedChunks = try FileBlobStore(folder: shared.appendingPathComponent("chunks"))
      let events = DirectoryTransport(folder: shared.appendingPathComponent("events"))
      // Chunks first, so a peer that sees the index finds the content.
      report.sentChunks = try objects.copy(try chunksOfCurrentContents(), to: sharedChunks)
      report.sentEvents = try await events.send(from: database)
      let fetched = try await events.fetch(into: database)
      report.merged = fetched.merged
      report.rejected = fetched.rejected
      report.incompleteSources = fetched.incompleteSources
      report.conflicts = try resolveConflicts()
      if !report.conflicts.isEmpty { report.sentEvents += try await events.send(from: database) }
      report.receivedChunks = try sharedChunks.copy(try chunksOfCurrentContents(), to: objects)
      report.materialized = try materialize()
      return report
    }
  }

  /// Syncs with a `filesync serve` peer over TCP: pushes the chunks it lacks,
  /// exchanges index events on one connection, fetches the chunks this peer
  /// lacks (each verified and stored as it arrives, so an interrupted
  /// transfer resumes where it stopped), then materializes.
  public func sync(with transport: TCPTransport, chunkProgress: (@Sendable (BlobTransferReport) -> Void)? = nil) async throws -> FileSyncReport {
    try await exclusively {
      var report = FileSyncReport()
      report.scan = try scan()
      report.sentChunks = try await transport.sendBlobs(try chunksOfCurrentContents(), from: objects, as: database)
      let session = try await transport.sync(database)
      report.sentEvents = session.sentEvents
      report.merged = session.received
      report.conflicts = try resolveConflicts()
      if !report.conflicts.isEmpty { report.sentEvents += try await transport.send(from: database) }
      report.receivedChunks = try await transport.fetchBlobs(try chunksOfCurrentContents(), into: objects, as: database, progress: chunkProgress)
      report.materialized = try materialize()
      return report
    }
  }

  /// One round of a serving peer: scan local changes, resolve conflicts
  /// that clients' pushes created, materialize what arrived.
  @discardableResult
  public func refresh() throws -> (scan: ScanReport, conflicts: [ConflictCopy], materialized: MaterializeReport) {
    try exclusively {
      let scan = try scan()
      let conflicts = try resolveConflicts()
      return (scan, conflicts, try materialize())
    }
  }
}
