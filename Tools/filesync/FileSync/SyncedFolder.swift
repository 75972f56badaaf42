import Chronicle
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A folder kept in sync with peers. Its index (every path's versions, the
/// current version of each path, the chunk lists of contents, resolved
/// conflicts) lives in Chronicle tables in `.filesync/index.sqlite` and
/// travels as events; file contents travel as content-addressed chunks
/// (`.filesync/objects`). `scan` records what changed on disk, a sync moves
/// the index and the chunks, and `materialize` makes the disk match the index.
///
/// ```swift
/// let folder = try SyncedFolder.create(at: root, name: "laptop")
/// try folder.scan()
/// try await folder.sync(through: sharedFolder)      // or sync(with: TCPTransport)
/// ```
public final class SyncedFolder: Sendable {
  /// The synced folder.
  public let root: URL
  /// The index.
  public let database: ChronicleDatabase
  /// Chunks of every content this peer stored or received.
  public let objects: FileBlobStore
  /// This peer's name, as conflict copies show it.
  public let name: String
  let local: LocalState
  let wallClock: @Sendable () -> Int

  static let stateFolder = FolderPath.stateFolder

  private init(root: URL, database: ChronicleDatabase, objects: FileBlobStore, local: LocalState, name: String, wallClock: @escaping @Sendable () -> Int) {
    self.root = root
    self.database = database
    self.objects = objects
    self.local = local
    self.name = name
    self.wallClock = wallClock
  }

  /// Makes `root` a synced folder (creating it if needed), named `name`
  /// (letters, digits, spaces, `.`, `_`, `-`; default: the host name).
  public static func create(at root: URL, name: String? = nil) throws -> SyncedFolder {
    let state = root.appendingPathComponent(stateFolder)
    guard !FileManager.default.fileExists(atPath: state.path) else { throw FileSyncError.alreadyInitialized(root: root.path) }
    let name = name ?? ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "peer"
    guard Self.isValidName(name) else { throw FileSyncError.invalidPeerName(name) }
    do {
      try FileManager.default.createDirectory(at: state.appendingPathComponent("tmp"), withIntermediateDirectories: true)
    } catch {
      throw FileSyncError.io(path: state.path, reason: "cannot create (\(error.localizedDescription))")
    }
    let local = try LocalState(path: state.appendingPathComponent("local.sqlite").path)
    try local.setSetting("name", name)
    let folder = try open(at: root)
    try folder.database.migrate(IndexSchema.migrationName) { migration in try migration.db.execute(sql: IndexSchema.sql) }
    return folder
  }

  /// Opens a synced folder made by ``create(at:name:)``.
  public static func open(at root: URL, wallClock: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970 * 1000) }) throws -> SyncedFolder {
    let root = root.standardizedFileURL
    let state = root.appendingPathComponent(stateFolder)
    guard FileManager.default.fileExists(atPath: state.appendingPathComponent("local.sqlite").path) else {
      throw FileSyncError.notInitialized(root: root.path)
    }
    let local = try LocalState(path: state.appendingPathComponent("local.sqlite").path)
    let database = try Chronicle.open(path: state.appendingPathComponent("index.sqlite").path)
    // Chunks are verified whenever a file is assembled (a damaged one is
    // removed and fetched again), so they need not be flushed one by one.
    let objects = try FileBlobStore(folder: state.appendingPathComponent("objects"), flushesWrites: false)
    let name = try local.setting("name") ?? "peer"
    return SyncedFolder(root: root, database: database, objects: objects, local: local, name: name, wallClock: wallClock)
  }

  /// Whether `name` may be a peer name (it becomes part of conflict copies' names).
  public static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.count) && name.trimmingCharacters(in: .whitespaces) == name
      && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || " ._-".unicodeScalars.contains($0) }
  }

  /// Where temporary files are assembled (same file system as the folder, so renames are atomic).
  var temporaryFolder: URL { root.appendingPathComponent(Self.stateFolder).appendingPathComponent("tmp") }

  /// Runs `body` holding the folder's lock, so two processes never scan or
  /// write the same folder at once.
  public func exclusively<T>(_ body: () async throws -> T) async throws -> T {
    let descriptor = try lock()
    defer { close(descriptor) }
    return try await body()
  }

  /// Synchronous ``exclusively(_:)``.
  public func exclusively<T>(_ body: () throws -> T) throws -> T {
    let descriptor = try lock()
    defer { close(descriptor) }
    return try body()
  }

  /// Opens the lock file and waits for the exclusive lock; closing the
  /// returned descriptor releases it.
  private func lock() throws -> Int32 {
    let path = root.appendingPathComponent(Self.stateFolder).appendingPathComponent("lock").path
    let descriptor = openFile(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw FileSyncError.io(path: path, reason: "cannot open the lock file") }
    guard flock(descriptor, LOCK_EX) == 0 else {
      close(descriptor)
      throw FileSyncError.busy(root: root.path)
    }
    return descriptor
  }

  // MARK: Index queries shared by the steps

  /// Every path's current version.
  func currentVersions(_ db: Database) throws -> [String: FileVersion] {
    let rows = try #sql(
      "SELECT \(FileVersion.columns) FROM \(FileEntry.self) JOIN \(FileVersion.self) ON \(FileVersion.columns.id) = \(FileEntry.columns.versionID)",
      as: FileVersion.self
    ).fetchAll(db)
    return Dictionary(rows.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The chunks of every content the current versions need.
  func chunksOfCurrentContents() throws -> [BlobHash] {
    try database.read { db in
      try #sql(
        """
        SELECT DISTINCT \(ContentRecord.columns) FROM \(FileEntry.self)
        JOIN \(FileVersion.self) ON \(FileVersion.columns.id) = \(FileEntry.columns.versionID)
        JOIN \(ContentRecord.self) ON \(ContentRecord.columns.hash) = \(FileVersion.columns.contentHash)
        """,
        as: ContentRecord.self
      ).fetchAll(db).flatMap(\.chunkHashes)
    }
  }

  /// A new version authored here.
  func newVersion(
    path: String, change: FileVersion.Change, detail: String? = nil, contentHash: String?, size: Int, modifiedAt: Int, base: UUID?
  ) -> FileVersion {
    FileVersion(
      id: UUID(), path: path, change: change, detail: detail, contentHash: contentHash, size: size, modifiedAt: modifiedAt, base: base,
      peer: database.peerID.description, peerName: name, recordedAt: wallClock())
  }

  /// Records `versions` as the current versions of their paths, with their contents.
  func record(_ versions: [FileVersion], contents: [ContentRecord], _ db: Database) throws {
    for content in contents {
      try ContentRecord.insert(or: .ignore) { content }.execute(db)
    }
    for version in versions {
      try FileVersion.insert { version }.execute(db)
      try FileEntry.insert { FileEntry(path: version.path, versionID: version.id) } onConflict: { $0.path } doUpdate: { row, excluded in
        row.versionID = excluded.versionID
      }.execute(db)
    }
  }
}

/// `open(2)`, named apart from ``SyncedFolder/open(at:wallClock:)``.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}
