import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `lstat` says about a path, without following a symbolic link.
struct FileStat: Equatable, Sendable {
  enum Kind: Sendable { case regular, directory, symbolicLink, other }

  var kind: Kind
  var size: Int
  /// Modification time in nanoseconds since 1970.
  var modifiedNanoseconds: Int64
  var inode: UInt64

  /// The status of `path`, or `nil` when nothing is there.
  static func of(_ path: String) -> FileStat? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    let kind: Kind =
      switch status.st_mode & S_IFMT {
      case S_IFREG: .regular
      case S_IFDIR: .directory
      case S_IFLNK: .symbolicLink
      default: .other
      }
    #if canImport(Darwin)
      let time = status.st_mtimespec
    #else
      let time = status.st_mtim
    #endif
    return FileStat(
      kind: kind, size: Int(status.st_size), modifiedNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec),
      inode: UInt64(status.st_ino))
  }

  /// Whether the file is still the one recorded (same size, time and inode).
  func matches(_ record: LocalFile) -> Bool {
    kind == .regular && size == record.size && modifiedNanoseconds == record.modifiedNanoseconds && inode == record.inode
  }

  /// Whether the file at `url` (with this status) still holds the recorded
  /// content: by status, or, for a record made while the file was recent
  /// (no time kept), by hashing it.
  func holds(_ record: LocalFile, at url: URL) -> Bool {
    if matches(record) { return true }
    guard kind == .regular, record.modifiedNanoseconds == 0, size == record.size, let expected = record.contentHash else { return false }
    return ContentChunks.hash(fileAt: url) == expected
  }
}
