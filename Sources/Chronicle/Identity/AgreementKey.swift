import Crypto

/// A device's X25519 key-agreement key, derived from its Ed25519 device key
/// (as libsodium's `crypto_sign_ed25519_*_to_curve25519` and age's
/// `ssh-ed25519` recipients do): the group's content keys are sealed to it,
/// so anyone who knows a member's signing key can seal to it, and only that
/// device can open what was sealed.
///
/// - Private half: the clamped first 32 bytes of SHA-512 of the Ed25519 seed,
///   the very scalar Ed25519 signs with.
/// - Public half: the Montgomery form `u = (1 + y) / (1 − y) mod 2²⁵⁵ − 19` of
///   the Edwards point the Ed25519 public key encodes. It is computed from
///   public data only, so it needs no constant-time arithmetic.
enum AgreementKey {
  /// The agreement key of a device key.
  static func privateKey(of device: DeviceKey) -> Curve25519.KeyAgreement.PrivateKey {
    let scalar = Array(SHA512.hash(data: device.privateKey.rawRepresentation).prefix(32))
    // X25519 clamps the scalar itself; 32 bytes are always accepted.
    return try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: scalar)
  }

  /// The agreement public key of the device whose Ed25519 public key is
  /// `signingKey`; nil when those bytes encode no usable point.
  static func publicKey(ofSigningKey signingKey: [UInt8]) -> Curve25519.KeyAgreement.PublicKey? {
    guard signingKey.count == 32 else { return nil }
    var yBytes = signingKey
    yBytes[31] &= 0x7F  // the top bit is the sign of x
    let y = FieldElement(littleEndian: yBytes).reduced()
    let denominator = FieldElement.one.subtracting(y)
    guard !denominator.isZero else { return nil }
    let u = FieldElement.one.adding(y).multiplied(by: denominator.inverse()).reduced()
    guard !u.isZero else { return nil }
    return try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: u.littleEndianBytes)
  }
}

extension DeviceKey {
  /// The 32 bytes of this device's agreement public key.
  package var agreementPublicKey: [UInt8] { Array(AgreementKey.privateKey(of: self).publicKey.rawRepresentation) }
}

/// An integer modulo p = 2²⁵⁵ − 19 in four 64-bit limbs, little-endian, kept
/// below 2²⁵⁶ between operations (``reduced()`` makes it canonical).
private struct FieldElement {
  var limbs: [UInt64]

  static let one = FieldElement(limbs: [1, 0, 0, 0])
  static let p = FieldElement(limbs: [0xFFFF_FFFF_FFFF_FFED, .max, .max, 0x7FFF_FFFF_FFFF_FFFF])

  init(limbs: [UInt64]) { self.limbs = limbs }

  init(littleEndian bytes: [UInt8]) {
    limbs = (0..<4).map { limb in
      (0..<8).reduce(UInt64(0)) { value, byte in value | UInt64(bytes[limb * 8 + byte]) << (8 * UInt64(byte)) }
    }
  }

  var littleEndianBytes: [UInt8] {
    limbs.flatMap { limb in (0..<8).map { UInt8(truncatingIfNeeded: limb >> (8 * UInt64($0))) } }
  }

  var isZero: Bool { reduced().limbs.allSatisfy { $0 == 0 } }

  /// Whether self ≥ other, as plain integers.
  private func isAtLeast(_ other: FieldElement) -> Bool {
    for index in stride(from: 3, through: 0, by: -1) where limbs[index] != other.limbs[index] {
      return limbs[index] > other.limbs[index]
    }
    return true
  }

  /// self − other as plain integers, with the borrow out.
  private func minus(_ other: FieldElement) -> (FieldElement, borrow: Bool) {
    var result = limbs, borrow: UInt64 = 0
    for index in 0..<4 {
      let (first, overflow1) = limbs[index].subtractingReportingOverflow(other.limbs[index])
      let (second, overflow2) = first.subtractingReportingOverflow(borrow)
      result[index] = second
      borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
    }
    return (FieldElement(limbs: result), borrow != 0)
  }

  /// The canonical representative, below p.
  func reduced() -> FieldElement {
    var value = self
    while value.isAtLeast(Self.p) { value = value.minus(Self.p).0 }
    return value
  }

  /// Folds `carry` · 2²⁵⁶ (≡ 38 · carry) back into four limbs.
  private static func fold(_ limbs: [UInt64], carry: UInt64) -> FieldElement {
    var result = limbs, carry = carry
    while carry != 0 {
      var add = carry &* 38
      carry = 0
      for index in 0..<4 {
        let (sum, overflow) = result[index].addingReportingOverflow(add)
        result[index] = sum
        add = overflow ? 1 : 0
        if add == 0 { break }
      }
      carry = add
    }
    return FieldElement(limbs: result)
  }

  func adding(_ other: FieldElement) -> FieldElement {
    var result = limbs, carry: UInt64 = 0
    for index in 0..<4 {
      let (first, overflow1) = limbs[index].addingReportingOverflow(other.limbs[index])
      let (second, overflow2) = first.addingReportingOverflow(carry)
      result[index] = second
      carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
    }
    return Self.fold(result, carry: carry)
  }

  /// self − other mod p, for `other` canonical.
  func subtracting(_ other: FieldElement) -> FieldElement {
    // self + p − other never goes below zero, and self + p < 2²⁵⁶ for self < p.
    let (difference, borrow) = reduced().adding(Self.p).minus(other)
    precondition(!borrow)
    return difference
  }

  func multiplied(by other: FieldElement) -> FieldElement {
    var wide = [UInt64](repeating: 0, count: 8)
    for i in 0..<4 {
      var carry: UInt64 = 0
      for j in 0..<4 {
        // a·b + r + carry < 2¹²⁸: the high half takes every carry.
        let (high, low) = limbs[i].multipliedFullWidth(by: other.limbs[j])
        let (sum1, overflow1) = wide[i + j].addingReportingOverflow(low)
        let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
        wide[i + j] = sum2
        carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
      }
      wide[i + 4] = carry
    }
    // low + 38 · high, then the carry out folded again.
    var result = Array(wide[0..<4]), carry: UInt64 = 0
    for index in 0..<4 {
      let (high, low) = wide[index + 4].multipliedFullWidth(by: 38)
      let (sum1, overflow1) = result[index].addingReportingOverflow(low)
      let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
      result[index] = sum2
      carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
    }
    return Self.fold(result, carry: carry)
  }

  /// self^(p − 2) = 1/self (Fermat), square and multiply from the top bit.
  func inverse() -> FieldElement {
    let exponent = Self.p.minus(FieldElement(limbs: [2, 0, 0, 0])).0
    var result = Self.one
    for bit in stride(from: 254, through: 0, by: -1) {
      result = result.multiplied(by: result)
      if exponent.limbs[bit / 64] >> UInt64(bit % 64) & 1 == 1 { result = result.multiplied(by: self) }
    }
    return result
  }
}
