import Chronicle
import Crypto

/// A device's proof, inside the handshake, that it holds the key of the peer
/// id it claims: its public key and its Ed25519 signature of the transcript.
struct DeviceProof: Equatable {
  var publicKey: [UInt8]
  var signature: [UInt8]

  static let size = 32 + 64

  /// Signs `transcript` for `role` ("client" or "server") with `key`.
  init(role: String, transcript: [UInt8], key: DeviceKey) {
    publicKey = key.publicKey
    signature = key.signature(for: Self.message(role, transcript))
  }

  init(publicKey: [UInt8], signature: [UInt8]) {
    self.publicKey = publicKey
    self.signature = signature
  }

  /// Whether the signature is `publicKey`'s, over `transcript` for `role`.
  func isValid(role: String, transcript: [UInt8]) -> Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
    return key.isValidSignature(signature, for: Self.message(role, transcript))
  }

  private static func message(_ role: String, _ transcript: [UInt8]) -> [UInt8] {
    Array("chronicle-sync v2 \(role) device".utf8) + transcript
  }

  /// The optional proof that ends a proof or welcome message.
  static func read(_ reader: inout WireReader) throws(WireReader.Malformed) -> DeviceProof? {
    guard !reader.isAtEnd else { return nil }
    return DeviceProof(publicKey: try reader.raw(32), signature: try reader.raw(64))
  }
}
