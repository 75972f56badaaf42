import Crypto
import Foundation

/// The group's shared secret: every peer of a sync group holds the same key
/// and proves it to the other side before any data moves.
///
/// Keys live in files readable by their owner only (`chronicle keygen`
/// writes one), never on a command line. Databases in a group need none:
/// ``groupMembersOnly`` admits the group's members by their device keys.
public struct SyncKey: Sendable {
  private let bytes: [UInt8]
  /// Whether this is ``groupMembersOnly`` (no shared secret).
  public let isGroupMembersOnly: Bool

  /// No key file: each side proves it is the device its peer id names (its
  /// device key signs the handshake), and a database syncs only with the
  /// active members of its group, as it does with a key file; a device that
  /// is not admitted yet may push its join request to an admin, nothing
  /// more. Sessions are sealed all the same, with keys from the handshake's
  /// two fresh X25519 keys. A database in no group needs a key file: with
  /// this one, a sync or a server fails with ``NetworkSyncError/keyFileNeeded(_:)``.
  /// Both sides must use it (a side with a key file refuses the other).
  public static let groupMembersOnly = SyncKey(
    bytes: Array(SHA256.hash(data: Array("chronicle-sync group members only v1".utf8))), isGroupMembersOnly: true)

  /// The key for HMAC and key derivation.
  var key: SymmetricKey { SymmetricKey(data: bytes) }

  /// A fresh random 256-bit key.
  public static func generate() -> SyncKey {
    SyncKey(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
  }

  static let prefix = "chronicle-sync-key-v1:"

  init(bytes: [UInt8], isGroupMembersOnly: Bool = false) {
    self.bytes = bytes
    self.isGroupMembersOnly = isGroupMembersOnly
  }

  /// Reads a key file.
  ///
  /// - Throws: ``NetworkSyncError/keyFile(path:problem:)`` when the file is
  ///   missing, malformed, or readable or writable by anyone but its owner.
  public init(contentsOf url: URL) throws {
    let path = url.path
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw NetworkSyncError.keyFile(path: path, problem: "cannot be read (\(String(cString: strerror(errno)))). Create one with: chronicle keygen \(path)")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw NetworkSyncError.keyFile(
        path: path, problem: "is accessible by other users (mode \(String(mode, radix: 8))). Fix: chmod 600 \(path)")
    }
    let text = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.hasPrefix(Self.prefix), let bytes = [UInt8](hexadecimal: String(text.dropFirst(Self.prefix.count))), bytes.count == 32 else {
      throw NetworkSyncError.keyFile(path: path, problem: "is not a Chronicle sync key (expected one line '\(Self.prefix)' and 64 hex digits, as chronicle keygen writes)")
    }
    self.init(bytes: bytes)
  }

  /// Writes the key to a new file that only its owner can read and write.
  ///
  /// - Throws: ``NetworkSyncError/keyFile(path:problem:)`` when the file
  ///   exists (a key is never overwritten by accident) or cannot be created.
  public func write(to url: URL) throws {
    let path = url.path
    guard !isGroupMembersOnly else {
      throw NetworkSyncError.keyFile(path: path, problem: "was not written: groupMembersOnly is no secret (use SyncKey.generate())")
    }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else {
      let reason = errno == EEXIST ? "already exists; a key is never overwritten (delete it first if you mean to replace the group's key)" : String(cString: strerror(errno))
      throw NetworkSyncError.keyFile(path: path, problem: reason)
    }
    defer { close(descriptor) }
    let text = Array((Self.prefix + hex + "\n").utf8)
    let written = text.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    guard written == text.count, fsync(descriptor) == 0 else {
      throw NetworkSyncError.keyFile(path: path, problem: "could not be written (\(String(cString: strerror(errno))))")
    }
  }

  private var hex: String { bytes.hexadecimal }
}
