/// Finds the rows a transaction has already touched, by table and primary key.
///
/// Runs once per changed row inside the preupdate hook, so single INTEGER
/// keys (the common case) go through a small open-addressing table with a
/// multiplicative hash instead of `Dictionary` and its seeded SipHash.
struct TouchedRowIndex {
  private var owners: [UInt] = []      // table identity per slot, 0 when the slot is empty
  private var keys: [Int64] = []
  private var positions: [Int32] = []
  private var integerCount = 0
  private var shift: UInt64 = 64
  private var other: [OtherKey: Int] = [:]

  private struct OtherKey: Hashable {
    let table: ObjectIdentifier
    let key: RowKey
  }

  private static let minimumCapacity = 1024

  init() { allocate(capacity: Self.minimumCapacity) }

  /// The position recorded for the row, or nil after recording `position` for it.
  mutating func position(of table: TrackedTable, key: RowKey, orRecord position: Int) -> Int? {
    guard case .integer(let value) = key else {
      let otherKey = OtherKey(table: ObjectIdentifier(table), key: key)
      if let existing = other[otherKey] { return existing }
      other[otherKey] = position
      return nil
    }
    let owner = UInt(bitPattern: ObjectIdentifier(table))
    var slot = slot(owner: owner, key: value)
    let mask = owners.count - 1
    while owners[slot] != 0 {
      if owners[slot] == owner, keys[slot] == value { return Int(positions[slot]) }
      slot = (slot + 1) & mask
    }
    owners[slot] = owner
    keys[slot] = value
    positions[slot] = Int32(truncatingIfNeeded: position)
    integerCount += 1
    if integerCount * 2 > owners.count { grow() }
    return nil
  }

  /// Forgets every row (the transaction ended).
  mutating func removeAll() {
    other.removeAll(keepingCapacity: true)
    guard integerCount > 0 else { return }
    if owners.count > Self.minimumCapacity {
      allocate(capacity: Self.minimumCapacity)  // a big transaction does not tax the small ones after it
    } else {
      for index in owners.indices { owners[index] = 0 }
    }
    integerCount = 0
  }

  private func slot(owner: UInt, key: Int64) -> Int {
    // Fibonacci hashing: the top bits of the product are well mixed.
    let mixed = (UInt64(bitPattern: key) ^ UInt64(owner) &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: mixed >> shift)
  }

  private mutating func allocate(capacity: Int) {
    owners = Array(repeating: 0, count: capacity)
    keys = Array(repeating: 0, count: capacity)
    positions = Array(repeating: 0, count: capacity)
    shift = UInt64(64 - capacity.trailingZeroBitCount)
  }

  private mutating func grow() {
    let (oldOwners, oldKeys, oldPositions) = (owners, keys, positions)
    allocate(capacity: owners.count * 2)
    let mask = owners.count - 1
    for index in oldOwners.indices where oldOwners[index] != 0 {
      var slot = slot(owner: oldOwners[index], key: oldKeys[index])
      while owners[slot] != 0 { slot = (slot + 1) & mask }
      owners[slot] = oldOwners[index]
      keys[slot] = oldKeys[index]
      positions[slot] = oldPositions[index]
    }
  }
}
