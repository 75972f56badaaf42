import Foundation

/// Exchanges events through a folder that every peer can read and write (a
/// folder kept in sync by a file-sync tool, a network share, a USB stick).
///
/// Each peer writes into its own subfolder, named by its peer id, segment
/// files holding its own new events: `FIRST-LAST.chrb` (the sequence range,
/// 20 digits each); and into other peers' subfolders the events of theirs
/// it holds that are not there yet (`FIRST-LAST.FORWARDER.chrb`), so a peer
/// that syncs only through the folder gets them. At most ``maxSegmentEvents`` events or
/// about ``maxSegmentBytes`` each, so that neither side holds more than one
/// segment in memory, and a reader merges a long history a segment at a time. A segment is written under a temporary
/// name and renamed when complete. Readers skip what their version vector
/// covers, skip files still shorter than their header declares (a copy in
/// progress) for ``damagedAfter``, then report them as damaged, and reject a
/// corrupt file without letting it block the others. A writer rewrites its
/// own segments whose size is not the one their header declares.
/// Layout in `Schemas/SYNC-PROTOCOL.md`.
public struct DirectoryTransport: SyncTransport {
  public let folder: URL
  /// How long a segment may stay shorter than its header declares before it
  /// is reported as damaged (in ``FetchReport/rejected``) rather than as
  /// still arriving (``FetchReport/incompleteSources``). Writers rename
  /// complete files into place, so only a copy by another tool (a file-sync
  /// service still downloading it) can be short for a while.
  public var damagedAfter: Duration
  /// The most events one segment file holds (10,000).
  public var maxSegmentEvents = 10_000
  /// The size past which a segment file holds no further event (1 MiB; a
  /// segment holds at least one). A reader merges a segment in one
  /// transaction, and a merge of a large history runs fastest in
  /// transactions of about this size (as TCP's batches are): at 16 MiB, the
  /// pages a transaction changes outgrow the page cache and are written twice.
  public var maxSegmentBytes = 1 << 20
  static let segmentExtension = "chrb"

  public init(folder: URL, damagedAfter: Duration = .seconds(60)) {
    self.folder = folder
    self.damagedAfter = damagedAfter
  }

  public func send(from database: ChronicleDatabase) async throws -> Int {
    let peer = database.peerID
    let own = folder.appendingPathComponent(peer.description, isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
    } catch {
      throw SyncError.transport("cannot create \(own.path): \(error.localizedDescription)")
    }
    // The segments it wrote itself (others may have forwarded its events into its folder too).
    let ownSegments = try segments(in: own).filter { $0.forwardedBy == nil }
    // Segments carry their events' routes once this peer can make them.
    let routes = try database.groupKeyring()?.sealingEpoch != nil
    try rewriteOwnSegments(ownSegments, of: database, withRoutes: routes)
    var written = ownSegments.map(\.last).max() ?? 0
    try database.requireCovered(VersionVector([peer: written]), origin: peer)
    var sent = 0
    while true {
      // Signed events only: one committed after the sealing waits for the next send.
      let events = try database.ownEvents(after: written, maxEvents: maxSegmentEvents, maxBytes: maxSegmentBytes)
      guard let last = events.last else { return sent + (try forwardOthersEvents(from: database)) }
      guard events.first?.sequence == written + 1, last.sequence == written + UInt64(events.count) else {
        throw SyncError.transport(
          "this peer's log lacks some of its own events \(written + 1)...\(last.sequence), so they cannot be written to \(own.path); "
            + "check the database with chronicle verify")
      }
      let name = String(format: "%020llu-%020llu.%@", written + 1, last.sequence, Self.segmentExtension)
      let bytes = EventBundle.encode(
        writer: peer, events: events.map(\.bytes),
        routes: routes ? try database.eventRoutes(for: events.map { EventID(origin: peer, sequence: $0.sequence) }) : nil)
      try Self.writeWhole(bytes, to: own.appendingPathComponent(name), doing: "write")
      written = last.sequence
      sent += events.count
    }
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
      guard let peer = PeerID(entry.lastPathComponent) else {
        report.rejected += misplacedSegments(at: entry)
        continue
      }
      guard peer != database.peerID else { continue }
      let vector = try database.versionVector()
      let (segments, misnamed) = try segmentsAndMisnamed(in: entry)
      report.rejected += misnamed
      // A segment this peer holds the events of, read again for their routes
      // when it wants them (to forward those events to a relay): the one
      // holding the first event wanted, a segment a fetch.
      let wanted = try database.routeWants().filter { $0.origin == peer }
      for segment in segments where segment.last <= vector[peer] {
        guard wanted.contains(where: { $0.from >= segment.first && $0.from <= segment.last }) else { continue }
        if let bytes = try? [UInt8](Data(contentsOf: segment.url)),
           case .complete(let serialized)? = try? EventBundle.envelope(bytes, source: segment.url.path), serialized.writer == peer {
          try database.saveEventRoutes(serialized.routes.filter { $0.origin == peer })
        }
      }
      var held = vector[peer]
      for segment in segments where segment.last > vector[peer] {
        // Covered by one read just before (a peer's own segments and those
        // others forwarded into its folder may overlap).
        guard segment.last > held else { continue }
        let source = segment.url.path
        do {
          let bytes = try [UInt8](Data(contentsOf: segment.url))
          switch try EventBundle.decode(bytes, source: source, gate: try database.decodeGate()) {
          case .incomplete(let declared, let found):
            let age = Self.age(of: segment.url)
            guard age >= damagedAfter else {
              report.incompleteSources.append(source)
              continue
            }
            report.rejected.append(.badBundle(
              source: source, offset: found,
              reason: "damaged: it holds \(found) of the \(declared) bytes its header declares and has not changed for \(Int(age.components.seconds)) s "
                + "(writers rename complete files into place, so it is not being written). This peer lacks events "
                + "\(peer.shortDescription):\(segment.first)...\(segment.last) until \(peer.shortDescription) rewrites the file: it does at its next sync"))
          case .complete(let writer, let events, let routes):
            try checkSegment(events, writer: writer, folderPeer: peer, segment: segment, source: source)
            report.add(try database.applyRemote(events, source: source), source: source)
            // The writer's signatures for relays: this peer may forward its events.
            try database.saveEventRoutes(routes.filter { $0.origin == writer })
            // What the log now holds of it (a segment's refused events are not
            // held: a segment forged into its folder covers nothing).
            held = try database.versionVector()[peer]
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
    /// The peer that wrote it into this folder for the folder's peer, when
    /// not that peer itself.
    var forwardedBy: PeerID?
  }

  /// Writes the other members' events this peer holds and their folders
  /// lack into their folders, with their routes (`FIRST-LAST.FORWARDER.chrb`:
  /// one writer a file name, so a file-sync tool never has two versions of
  /// one to reconcile): a peer that syncs only through the folder gets the
  /// events of members that never write to it. Returns how many.
  private func forwardOthersEvents(from database: ChronicleDatabase) throws -> Int {
    let me = database.peerID
    var forwarded = 0
    for (origin, held) in try database.versionVector().sequences.sorted(by: { $0.key < $1.key }) where origin != me {
      let directory = folder.appendingPathComponent(origin.description, isDirectory: true)
      var through = try segments(in: directory).map(\.last).max() ?? 0
      guard held > through else { continue }
      do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      } catch {
        throw SyncError.transport("cannot create \(directory.path): \(error.localizedDescription)")
      }
      while through < held {
        // In order and without a gap: one the log lacks (compacted away) ends it.
        let events = try database.forwardableEvents(of: origin, after: through, maxEvents: maxSegmentEvents, maxBytes: maxSegmentBytes)
        guard let last = events.last else { break }
        let name = String(format: "%020llu-%020llu.%@.%@", through + 1, last.sequence, me.description, Self.segmentExtension)
        let bytes = EventBundle.encode(writer: origin, events: events.map(\.bytes), routes: events.compactMap(\.route))
        try Self.writeWhole(bytes, to: directory.appendingPathComponent(name), doing: "write")
        through = last.sequence
        forwarded += events.count
      }
    }
    return forwarded
  }

  /// The segment files of one peer's subfolder, in order.
  private func segments(in directory: URL) throws -> [Segment] {
    try segmentsAndMisnamed(in: directory).segments
  }

  /// The segment files of one peer's subfolder, in order, and a refusal for
  /// each file with the segment extension whose name gives no sequence range
  /// (renamed by hand or by a sync tool's conflict handling: never read).
  private func segmentsAndMisnamed(in directory: URL) throws -> (segments: [Segment], misnamed: [SyncError]) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return ([], []) }
    var segments: [Segment] = [], misnamed: [SyncError] = []
    for name in names where name.hasSuffix(".\(Self.segmentExtension)") && !name.hasPrefix(".") {
      // FIRST-LAST, or FIRST-LAST.FORWARDER for a segment another peer forwarded.
      let parts = name.dropLast(Self.segmentExtension.count + 1).split(separator: ".", omittingEmptySubsequences: false)
      let range = parts[0].split(separator: "-")
      let forwardedBy = parts.count == 2 ? PeerID(String(parts[1])) : nil
      guard parts.count == 1 || forwardedBy != nil,
            range.count == 2, let first = UInt64(range[0]), let last = UInt64(range[1]), first >= 1, first <= last else {
        misnamed.append(.badBundle(
          source: directory.appendingPathComponent(name).path, offset: 0,
          reason: "its name does not give a sequence range (FIRST-LAST.\(Self.segmentExtension), 20 digits each, or FIRST-LAST.FORWARDER.\(Self.segmentExtension)), so it is never read. Fix: remove it; its writer sends its events again under the right name if it still lacks them"))
        continue
      }
      segments.append(Segment(url: directory.appendingPathComponent(name), first: first, last: last, forwardedBy: forwardedBy))
    }
    return (segments.sorted { $0.first < $1.first }, misnamed)
  }

  /// A refusal for each segment file at `entry` (a file or a folder that is
  /// not a peer's): no reader looks there.
  private func misplacedSegments(at entry: URL) -> [SyncError] {
    let name = entry.lastPathComponent
    guard !name.hasPrefix(".") else { return [] }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: entry.path)).map { names in
      names.filter { $0.hasSuffix(".\(Self.segmentExtension)") && !$0.hasPrefix(".") }.map { entry.appendingPathComponent($0) }
    } ?? (name.hasSuffix(".\(Self.segmentExtension)") ? [entry] : [])
    return files.sorted { $0.path < $1.path }.map { file in
      .badBundle(
        source: file.path, offset: 0,
        reason: "a segment outside any peer's folder (segments live in \(folder.path)/PEER-ID/), so it is never read. Fix: move it into the folder of the peer that wrote it, or remove it")
    }
  }

  /// Rewrites, from the log, this peer's segments whose size is not the
  /// one their header declares (cut short, or a damaged size field), so
  /// that readers stop reporting them as damaged; and, `withRoutes`, those
  /// written without routes (bundle version 1: before it held a group key),
  /// so that a reader that wants them to forward those events to a relay
  /// reads them again.
  private func rewriteOwnSegments(_ segments: [Segment], of database: ChronicleDatabase, withRoutes: Bool) throws {
    for segment in segments {
      let damaged = !Self.sizeMatchesHeader(segment.url)
      guard damaged || (withRoutes && Self.formatVersion(segment.url) == 1) else { continue }
      let count = Int(segment.last - segment.first + 1)
      let events = try database.ownEvents(after: segment.first - 1, maxEvents: count, maxBytes: .max)
      // Events compacted away, or not this peer's to write: left as they are.
      guard events.map(\.sequence) == Array(segment.first...segment.last) else { continue }
      let bytes = EventBundle.encode(
        writer: database.peerID, events: events.map(\.bytes),
        routes: withRoutes ? try database.eventRoutes(for: events.map { EventID(origin: database.peerID, sequence: $0.sequence) }) : nil)
      // rename(2) replaces the file in one step.
      try Self.writeWhole(bytes, to: segment.url, doing: damaged ? "rewrite the damaged segment" : "add routes to the segment")
    }
  }

  /// Writes `bytes` under a hidden temporary name beside `url`, then
  /// renames it to `url` (replacing what is there in one step).
  private static func writeWhole(_ bytes: [UInt8], to url: URL, doing what: String) throws {
    let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
    do {
      try Data(bytes).write(to: temporary)
      guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw SyncError.transport("cannot \(what) \(url.path): \(error.localizedDescription)")
    }
  }

  /// The bundle format version in the file's header; nil when it reads no header.
  static func formatVersion(_ url: URL) -> UInt8? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 5), header.count == 5, Array(header.prefix(4)) == EventBundle.magic else { return nil }
    return header[header.startIndex + 4]
  }

  /// Whether the file is as long as its bundle header declares (read from
  /// the header alone, not the whole file).
  static func sizeMatchesHeader(_ url: URL) -> Bool {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: EventBundle.headerSize), header.count == EventBundle.headerSize,
      Array(header.prefix(4)) == EventBundle.magic,
      let size = try? handle.seekToEnd()
    else { return false }
    let declared = header.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return declared == size
  }

  /// How long ago the file last changed.
  static func age(of url: URL) -> Duration {
    guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date else { return .zero }
    return .milliseconds(Int64(max(0, Date().timeIntervalSince(modified)) * 1000))
  }
}
