/// Finds the rows a transaction has already touched, by table and primary key.
///
/// Runs once per changed row inside the preupdate hook, so single INTEGER
/// keys (the common case) skip `Dictionary` and its seeded SipHash:
/// - keys that arrive in ascending order per table (bulk inserts with
///   increasing ids) are appended to a sorted run, which costs a comparison
///   and an append, and is binary-searched later;
/// - other integer keys go to a small open-addressing table with a
///   multiplicative hash.
///
/// A key above the end of its table's run is in neither: everything in the
/// hash table was at most the run's end when it arrived, and the end only grows.
struct TouchedRowIndex {
  /// The ascending keys of one table, with their positions.
  private struct AscendingRun {
    let owner: UInt
    var keys: [Int64] = []
    var positions: [Int] = []
  }

  private var runs: [AscendingRun] = []
  private var lastRun = 0

  /// One slot of the open-addressing table, kept together so a probe touches one cache line.
  private struct Entry {
    var owner: UInt  // table identity, 0 when the slot is empty
    var key: Int64
    var position: Int
    static let empty = Entry(owner: 0, key: 0, position: 0)
  }

  private var entries: [Entry] = []
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
    let run = runIndex(of: owner)
    if let last = runs[run].keys.last, value <= last {
      if let found = Self.binarySearch(runs[run].keys, for: value) { return runs[run].positions[found] }
    } else {
      runs[run].keys.append(value)
      runs[run].positions.append(position)
      return nil
    }
    let start = slot(owner: owner, key: value)
    let found: Int? = entries.withUnsafeMutableBufferPointer { entries in
      let mask = entries.count - 1
      var slot = start
      while entries[slot].owner != 0 {
        if entries[slot].owner == owner, entries[slot].key == value { return entries[slot].position }
        slot = (slot + 1) & mask
      }
      entries[slot] = Entry(owner: owner, key: value, position: position)
      return nil
    }
    if found != nil { return found }
    integerCount += 1
    if integerCount * 2 > entries.count { grow() }
    return nil
  }

  /// Forgets every row (the transaction ended).
  mutating func removeAll() {
    other.removeAll(keepingCapacity: true)
    runs.removeAll { $0.keys.isEmpty }  // tables this transaction did not touch
    lastRun = 0
    for index in runs.indices {
      // A big transaction does not keep its memory for the small ones after it.
      let keep = runs[index].keys.capacity <= Self.minimumCapacity
      runs[index].keys.removeAll(keepingCapacity: keep)
      runs[index].positions.removeAll(keepingCapacity: keep)
    }
    guard integerCount > 0 else { return }
    if entries.count > Self.minimumCapacity {
      allocate(capacity: Self.minimumCapacity)  // a big transaction does not tax the small ones after it
    } else {
      for index in entries.indices { entries[index] = .empty }
    }
    integerCount = 0
  }

  /// The run of the table `owner`, created empty the first time.
  private mutating func runIndex(of owner: UInt) -> Int {
    if lastRun < runs.count, runs[lastRun].owner == owner { return lastRun }
    if let found = runs.firstIndex(where: { $0.owner == owner }) {
      lastRun = found
    } else {
      runs.append(AscendingRun(owner: owner))
      lastRun = runs.count - 1
    }
    return lastRun
  }

  private static func binarySearch(_ keys: [Int64], for key: Int64) -> Int? {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) / 2
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low < keys.count && keys[low] == key ? low : nil
  }

  private func slot(owner: UInt, key: Int64) -> Int { Self.slot(owner: owner, key: key, shift: shift) }

  private static func slot(owner: UInt, key: Int64, shift: UInt64) -> Int {
    // Fibonacci hashing: the top bits of the product are well mixed.
    let mixed = (UInt64(bitPattern: key) ^ UInt64(owner) &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: mixed >> shift)
  }

  private mutating func allocate(capacity: Int) {
    entries = Array(repeating: .empty, count: capacity)
    shift = UInt64(64 - capacity.trailingZeroBitCount)
  }

  private mutating func grow() {
    let old = entries
    allocate(capacity: old.count * 2)
    let shift = shift
    entries.withUnsafeMutableBufferPointer { entries in
      let mask = entries.count - 1
      for entry in old where entry.owner != 0 {
        var slot = Self.slot(owner: entry.owner, key: entry.key, shift: shift)
        while entries[slot].owner != 0 { slot = (slot + 1) & mask }
        entries[slot] = entry
      }
    }
  }
}
