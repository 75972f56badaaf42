/// The versions of the writes a ``MergeBatch`` holds, each kept once and
/// named by a number: a row's column clocks are such numbers, so that
/// merging a write compares two numbers (and, when they differ, two
/// versions of this table) instead of copying versions into every row.
///
/// Numbers are valid until ``removeAll()``, which the batch calls when it
/// has flushed its rows; -1 (``none``) stands for no version.
struct BatchVersions {
  static let none: Int32 = -1

  private var versions: [WriteVersion] = []
  private var numbers: [WriteVersion: Int32] = [:]
  /// The version numbered last: a batch numbers the writes of one event,
  /// all at its version, one after the other.
  private var last: (version: WriteVersion, number: Int32)?
  /// Versions read from stored merge state, by their stored form (clock
  /// reading and ``MergeDictionary`` number of the origin).
  private var storedNumbers: [StoredVersion: Int32] = [:]
  /// The dictionary number of each version's origin (-1: not looked up yet).
  private var originNumbers: [Int64] = []

  private struct StoredVersion: Hashable {
    var timestamp: UInt64
    var origin: Int64
  }

  var count: Int { versions.count }

  subscript(number: Int32) -> WriteVersion { versions[Int(number)] }

  /// The number of `version`, given now if it has none.
  mutating func number(_ version: WriteVersion) -> Int32 {
    if let last, last.version == version { return last.number }
    let number: Int32
    if let known = numbers[version] {
      number = known
    } else {
      number = Int32(versions.count)
      versions.append(version)
      originNumbers.append(-1)
      numbers[version] = number
    }
    last = (version, number)
    return number
  }

  /// The number of a version as merge state stores it.
  mutating func number(timestamp: UInt64, origin: Int64, _ dictionary: MergeDictionary) throws -> Int32 {
    let stored = StoredVersion(timestamp: timestamp, origin: origin)
    if let known = storedNumbers[stored] { return known }
    let number = number(WriteVersion(timestamp: HLCTimestamp(rawValue: timestamp), origin: try dictionary.origin(origin)))
    originNumbers[Int(number)] = origin
    storedNumbers[stored] = number
    return number
  }

  /// Whether the version numbered `number` is newer than the one numbered
  /// `other`; any version is newer than ``none``, and none is newer than any.
  func isNewer(_ number: Int32, than other: Int32) -> Bool {
    guard number != other, number >= 0 else { return false }
    return other < 0 || versions[Int(number)] > versions[Int(other)]
  }

  /// The ``MergeDictionary`` number of the origin of the version numbered `number`.
  mutating func originNumber(of number: Int32, _ dictionary: MergeDictionary) throws -> Int64 {
    let known = originNumbers[Int(number)]
    if known >= 0 { return known }
    let origin = try dictionary.number(ofOrigin: versions[Int(number)].origin)
    originNumbers[Int(number)] = origin
    return origin
  }

  /// Forgets every version: the numbers given so far name nothing from now on.
  mutating func removeAll() {
    versions.removeAll(keepingCapacity: true)
    numbers.removeAll(keepingCapacity: true)
    storedNumbers.removeAll(keepingCapacity: true)
    originNumbers.removeAll(keepingCapacity: true)
    last = nil
  }
}
