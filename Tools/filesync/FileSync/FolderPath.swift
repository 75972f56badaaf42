import Foundation

/// Paths inside a synced folder: relative, `/`-separated, never leaving the
/// folder. Every path from the index, whether scanned here or received from
/// a peer, is checked before anything on disk is touched.
enum FolderPath {
  /// The name of the state folder at the root, never synced.
  static let stateFolder = ".filesync"

  /// Throws ``FileSyncError/refusedPath(path:reason:)`` unless `path` is a
  /// plain relative path inside the folder.
  static func validate(_ path: String) throws {
    func refuse(_ reason: String) -> FileSyncError { .refusedPath(path: path, reason: reason) }
    guard !path.isEmpty else { throw refuse("it is empty") }
    guard path.utf8.count <= 4096 else { throw refuse("it is longer than 4096 bytes") }
    guard !path.hasPrefix("/") else { throw refuse("it is absolute; paths must be relative to the synced folder") }
    guard !path.utf8.contains(0) else { throw refuse("it contains a NUL byte") }
    guard !path.contains("\\") else { throw refuse("it contains a backslash, which other systems read as a separator") }
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    for component in components {
      switch component {
      case "": throw refuse("it has an empty component (a doubled or trailing '/')")
      case ".", "..": throw refuse("it has a '\(component)' component, which could lead out of the synced folder")
      default: guard component.utf8.count <= 255 else { throw refuse("a component is longer than 255 bytes") }
      }
    }
    guard components[0] != Substring(stateFolder) else { throw refuse("it is inside \(stateFolder), filesync's own state") }
  }

  /// The location of `path` under `root`, after checking that no existing
  /// component on the way is a symbolic link or a file (which could lead
  /// the write out of the folder or clobber something else).
  static func location(of path: String, in root: URL) throws -> URL {
    try validate(path)
    let components = path.split(separator: "/").map(String.init)
    var url = root
    for (index, component) in components.enumerated() {
      url.appendPathComponent(component)
      guard let status = FileStat.of(url.path) else { continue }
      let isLast = index == components.count - 1
      switch status.kind {
      case .symbolicLink:
        throw FileSyncError.refusedPath(path: path, reason: "'\(components[0...index].joined(separator: "/"))' is a symbolic link on this disk; filesync never writes through links")
      case .directory where isLast:
        throw FileSyncError.refusedPath(path: path, reason: "a folder of that name is in the way")
      case .regular where !isLast, .other where !isLast:
        throw FileSyncError.refusedPath(path: path, reason: "'\(components[0...index].joined(separator: "/"))' is a file, not a folder")
      case .other:
        throw FileSyncError.refusedPath(path: path, reason: "a special file (device, socket or pipe) is in the way")
      default:
        continue
      }
    }
    return url
  }
}
