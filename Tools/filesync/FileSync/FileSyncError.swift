import Foundation

/// Why a filesync operation failed; each case names the problem and the fix.
public enum FileSyncError: Error, Equatable, CustomStringConvertible {
  /// The folder has no `.filesync` state.
  case notInitialized(root: String)
  /// `init` on a folder that is synced already.
  case alreadyInitialized(root: String)
  /// A peer name that cannot appear in file names.
  case invalidPeerName(String)
  /// A path that must not be written (from a peer, or found on disk).
  case refusedPath(path: String, reason: String)
  /// `history` or `restore` of a path the index never had.
  case unknownPath(String)
  /// `restore --at` a time before the path had any version.
  case noVersionAt(path: String, time: String)
  /// The content of a version is not stored on this peer.
  case contentNotStored(path: String, version: String)
  /// A file or folder could not be read or written.
  case io(path: String, reason: String)
  /// Another filesync process holds the folder.
  case busy(root: String)

  public var description: String {
    switch self {
    case .notInitialized(let root):
      "\(root) is not a synced folder (no .filesync inside): run `filesync init \(root)` first"
    case .alreadyInitialized(let root):
      "\(root) is a synced folder already (it has .filesync); to start over, remove \(root)/.filesync"
    case .invalidPeerName(let name):
      "the peer name '\(name)' cannot appear in file names: use 1 to 64 letters, digits, spaces, '.', '_' or '-'"
    case .refusedPath(let path, let reason):
      "refused path '\(path)': \(reason)"
    case .unknownPath(let path):
      "'\(path)' has no history in this folder's index (paths are relative to the folder, for instance docs/plan.txt)"
    case .noVersionAt(let path, let time):
      "'\(path)' had no version yet at \(time): `filesync history \(path)` lists its versions and their times"
    case .contentNotStored(let path, let version):
      "the content of '\(path)' at version \(version) is not stored on this peer: sync with a peer that still has it, then restore again"
    case .io(let path, let reason):
      "\(path): \(reason)"
    case .busy(let root):
      "another filesync process is working on \(root): wait for it to finish, or stop `filesync serve` on that folder"
    }
  }
}
