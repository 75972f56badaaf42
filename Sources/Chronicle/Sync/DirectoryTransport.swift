import Foundation

/// Exchanges events through a folder that every peer can read and write (a
/// folder kept in sync by a file-sync tool, a network share, a USB stick).
///
/// Each peer writes only into its own subfolder, named by its peer id, one
/// segment file per send holding its own new events: `FIRST-LAST.chrb` (the
/// sequence range, 20 digits each). A segment is written under a temporary
/// name and renamed when complete. Readers skip what their version vector
/// covers, skip files still shorter than their header declares (a copy in
/// progress), and reject a corrupt file without letting it block the others.
/// Layout in `Schemas/SYNC-PROTOCOL.md`.
public struct DirectoryTransport: SyncTransport {
  public let folder: URL
  static let segmentExtension = "chrb"

  public init(folder: URL) { self.folder = folder }

  public func send(from database: ChronicleDatabase) async throws -> Int {
    let peer = database.peerID
    let own = folder.appendingPathComponent(peer.description, isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
    } catch {
      throw SyncError.transport("cannot create \(own.path): \(error.localizedDescription)")
    }
    let written = try segments(in: own).map(\.last).max() ?? 0
    let events = try database.serializedEvents(beyond: VersionVector([peer: written]), origin: peer)
    guard !events.isEmpty else { return 0 }
    let name = String(format: "%020llu-%020llu.%@", written + 1, written + UInt64(events.count), Self.segmentExtension)
    let bytes = EventBundle.encode(writer: peer, events: events)
    let temporary = own.appendingPathComponent(".\(name).partial")
    do {
      try Data(bytes).write(to: temporary)
      try FileManager.default.moveItem(at: temporary, to: own.appendingPathComponent(name))
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw SyncError.transport("cannot write \(name) in \(own.path): \(error.localizedDescription)")
    }
    return events.count
  }

  public func fetch(into database: ChronicleDatabase) async throws -> FetchReport {
    var report = FetchReport()
    let entries: [URL]
    do {
      entries = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    } catch {
      throw SyncError.transport("cannot read \(folder.path): \(error.localizedDescription)")
    }
    for entry in entries.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
      guard let peer = PeerID(entry.lastPathComponent), peer != database.peerID else { continue }
      let vector = try database.versionVector()
      for segment in try segments(in: entry) where segment.last > vector[peer] {
        let source = segment.url.path
        do {
          let bytes = try [UInt8](Data(contentsOf: segment.url))
          switch try EventBundle.decode(bytes, source: source) {
          case .incomplete:
            report.incompleteSources.append(source)
          case .complete(let writer, let events):
            try checkSegment(events, writer: writer, folderPeer: peer, segment: segment, source: source)
            report.add(try database.applyRemote(events, source: source), source: source)
          }
        } catch let error as SyncError {
          report.rejected.append(error)
        } catch {
          report.rejected.append(.transport("cannot read \(source): \(error.localizedDescription)"))
        }
      }
    }
    return report
  }

  /// A segment holds its writer's own events, exactly the range its name says.
  private func checkSegment(_ events: [IncomingEvent], writer: PeerID, folderPeer: PeerID, segment: Segment, source: String) throws(SyncError) {
    guard writer == folderPeer else {
      throw .forgedEvent(source: source, event: "-", reason: "the file says it was written by \(writer), but it is in the folder of \(folderPeer)")
    }
    let expected = Array(segment.first...segment.last)
    let found = events.map(\.event.sequence)
    for incoming in events where incoming.event.origin != folderPeer {
      throw .forgedEvent(source: source, event: incoming.event.id.description, reason: "a segment of \(folderPeer) may only hold that peer's events")
    }
    guard found == expected else {
      throw .badBundle(source: source, offset: 0, reason: "holds sequences \(found.first ?? 0)...\(found.last ?? 0) (\(found.count) events), its name says \(segment.first)...\(segment.last)")
    }
  }

  struct Segment {
    var url: URL
    var first: UInt64
    var last: UInt64
  }

  /// The complete-looking segment files of one peer's subfolder, in order.
  private func segments(in directory: URL) throws -> [Segment] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
    return names.compactMap { name -> Segment? in
      guard name.hasSuffix(".\(Self.segmentExtension)"), !name.hasPrefix(".") else { return nil }
      let range = name.dropLast(Self.segmentExtension.count + 1).split(separator: "-")
      guard range.count == 2, let first = UInt64(range[0]), let last = UInt64(range[1]), first >= 1, first <= last else { return nil }
      return Segment(url: directory.appendingPathComponent(name), first: first, last: last)
    }.sorted { $0.first < $1.first }
  }
}
