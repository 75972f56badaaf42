import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A device's Ed25519 signing key: the private half signs every event the
/// device writes, the public half (carried by each signed event) lets any
/// peer check them.
///
/// The key lives in a file beside the database (``fileURL(forDatabaseAt:)``),
/// readable by its owner only, and never inside the database: a copied or
/// shared database file does not carry it, so a copy cannot write as the
/// device it came from.
public struct DeviceKey: @unchecked Sendable {
  // Unchecked: swift-crypto's key is immutable once made (it does not declare
  // Sendable on Linux); signing only reads it.
  let privateKey: Curve25519.Signing.PrivateKey
  /// The 32 bytes of the public key.
  public let publicKey: [UInt8]

  init(_ privateKey: Curve25519.Signing.PrivateKey) {
    self.privateKey = privateKey
    self.publicKey = Array(privateKey.publicKey.rawRepresentation)
  }

  /// A new random key.
  public static func generate() -> DeviceKey { DeviceKey(Curve25519.Signing.PrivateKey()) }

  /// The peer id derived from this key (see ``PeerID/init(publicKey:)``).
  public var derivedPeerID: PeerID { PeerID(publicKey: publicKey) }

  /// Signs `bytes` (as in the sync handshake).
  package func signature(for bytes: [UInt8]) -> [UInt8] { sign(bytes) }

  /// Signs `bytes`.
  func sign(_ bytes: some DataProtocol) -> [UInt8] {
    // Signing with a well-formed key cannot fail.
    Array(try! privateKey.signature(for: Data(bytes)))
  }

  /// Where the key of the database at `path` lives: `PATH-device.key`.
  public static func fileURL(forDatabaseAt path: String) -> URL {
    URL(fileURLWithPath: path + "-device.key")
  }

  /// Where a replacement key waits until the change it belongs to commits.
  static func pendingFileURL(forDatabaseAt path: String) -> URL {
    URL(fileURLWithPath: path + "-device.key.new")
  }

  /// Moves `pending` over `url` (an atomic rename).
  static func replace(_ url: URL, with pending: URL) throws {
    guard rename(pending.path, url.path) == 0 else {
      throw ChronicleError.deviceKeyFile(path: url.path, problem: "could not be replaced by \(pending.path) (\(String(cString: strerror(errno))))")
    }
  }

  static let prefix = "chronicle-device-key-v1:"

  /// Reads a key file.
  ///
  /// - Throws: ``ChronicleError/deviceKeyFile(path:problem:)`` when the file
  ///   is malformed or readable or writable by anyone but its owner; nil when
  ///   there is no file.
  static func read(from url: URL) throws -> DeviceKey? {
    let path = url.path
    var status = stat()
    guard stat(path, &status) == 0 else {
      if errno == ENOENT { return nil }
      throw ChronicleError.deviceKeyFile(path: path, problem: "cannot be read (\(String(cString: strerror(errno))))")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw ChronicleError.deviceKeyFile(path: path, problem: "is accessible by other users (mode \(String(mode, radix: 8))). Fix: chmod 600 \(path)")
    }
    let text = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.hasPrefix(prefix), let raw = [UInt8](hexadecimal: String(text.dropFirst(prefix.count))), raw.count == 32,
          let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
    else {
      throw ChronicleError.deviceKeyFile(path: path, problem: "is not a Chronicle device key (one line '\(prefix)' and 64 hex digits)")
    }
    return DeviceKey(key)
  }

  /// Writes the key to `url`, readable and writable by its owner only: to a
  /// temporary file first, flushed, then renamed into place. An existing key
  /// file is replaced only when `replacing` is true.
  func write(to url: URL, replacing: Bool) throws {
    let path = url.path
    if !replacing, FileManager.default.fileExists(atPath: path) {
      throw ChronicleError.deviceKeyFile(path: path, problem: "already exists; a device key is never overwritten (it may belong to another copy of this database)")
    }
    let temporary = path + ".partial"
    unlink(temporary)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else {
      throw ChronicleError.deviceKeyFile(path: path, problem: "could not be created (\(String(cString: strerror(errno))))")
    }
    let hex = privateKey.rawRepresentation.hexadecimal
    let text = Array((Self.prefix + hex + "\n").utf8)
    let written = text.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    let flushed = fsync(descriptor) == 0
    close(descriptor)
    guard written == text.count, flushed, rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw ChronicleError.deviceKeyFile(path: path, problem: "could not be written (\(reason))")
    }
  }
}

extension PeerID {
  /// The peer id of the device whose public key is `publicKey`: the first 16
  /// bytes of its SHA-256, marked as a UUID of version 8 (custom) and the
  /// RFC 4122 variant. Nobody can choose a key that gives another device's id.
  public init(publicKey: [UInt8]) {
    var bytes = Array(SHA256.hash(data: publicKey).prefix(16))
    bytes[6] = bytes[6] & 0x0F | 0x80
    bytes[8] = bytes[8] & 0x3F | 0x80
    self = PeerID(bytes: bytes)!
  }

  /// Whether this id is derived from a device key (version 8), rather than a
  /// random id from before device keys (version 4) or one chosen by the app.
  public var isKeyDerived: Bool { bytes[6] >> 4 == 8 && bytes[8] >> 6 == 2 }
}
