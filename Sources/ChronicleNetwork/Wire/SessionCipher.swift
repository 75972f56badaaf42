import Crypto
import Foundation

/// Seals frames after the handshake: ChaCha20-Poly1305 with one key per
/// direction, derived (HKDF-SHA256) from the group key, the X25519 secret of
/// both sides' ephemeral keys and the handshake's transcript, and a counter
/// as nonce. A frame that was altered, replayed, reordered or dropped fails
/// to open. The ephemeral keys are forgotten when the session ends, so
/// recorded traffic stays closed to anyone who later holds the group key
/// file (a revoked device, a lost laptop): forward secrecy.
struct SessionCipher {
  enum Role { case client, server }

  private let sendKey: SymmetricKey
  private let receiveKey: SymmetricKey
  private var sent: UInt64 = 0
  private var received: UInt64 = 0

  /// Bytes a sealed frame adds to its plaintext.
  static let overhead = 16

  init(groupKey: SymmetricKey, ephemeralSecret: [UInt8], transcript: [UInt8], role: Role) {
    let inputKey = SymmetricKey(data: groupKey.withUnsafeBytes { Array($0) } + ephemeralSecret)
    func derive(_ label: String) -> SymmetricKey {
      HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: transcript, info: Array(label.utf8), outputByteCount: 32)
    }
    let clientToServer = derive("chronicle-sync v5 client to server")
    let serverToClient = derive("chronicle-sync v5 server to client")
    (sendKey, receiveKey) = role == .client ? (clientToServer, serverToClient) : (serverToClient, clientToServer)
  }

  private static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
    var bytes = [UInt8](repeating: 0, count: 12)
    for index in 0..<8 { bytes[4 + index] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(index))) }
    return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: always valid
  }

  mutating func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
    let box = try ChaChaPoly.seal(plaintext, using: sendKey, nonce: Self.nonce(sent))
    sent += 1
    return Array(box.ciphertext) + Array(box.tag)
  }

  /// Opens the next frame, or returns `nil` when it was not sealed by the
  /// other side of this session (tampered, replayed, or the wrong key).
  mutating func open(_ sealed: [UInt8]) -> [UInt8]? {
    guard sealed.count >= Self.overhead,
          let box = try? ChaChaPoly.SealedBox(
            nonce: Self.nonce(received), ciphertext: sealed.dropLast(Self.overhead), tag: sealed.suffix(Self.overhead)),
          let plaintext = try? ChaChaPoly.open(box, using: receiveKey)
    else { return nil }
    received += 1
    return Array(plaintext)
  }
}
