/// The version of each column's winning write, by column name: a small
/// array searched linearly. A row has few columns, and merging looks each one
/// up once per write: comparing a few short names spares hashing each one
/// into a dictionary that every row would allocate.
struct ColumnClocks: Equatable, Sequence {
  private var entries: [(column: String, version: WriteVersion)] = []

  init() {}

  /// Room for `capacity` columns before the first write, so that writing
  /// them one by one does not grow the storage each time.
  init(capacity: Int) {
    entries.reserveCapacity(capacity)
  }

  var count: Int { entries.count }
  var isEmpty: Bool { entries.isEmpty }

  /// The latest version of any column.
  var latest: WriteVersion? { entries.lazy.map(\.version).max() }

  subscript(column: String) -> WriteVersion? {
    get { entries.first { $0.column == column }?.version }
    set {
      if let index = entries.firstIndex(where: { $0.column == column }) {
        if let newValue { entries[index].version = newValue } else { entries.remove(at: index) }
      } else if let newValue {
        entries.append((column, newValue))
      }
    }
  }

  @discardableResult
  mutating func removeValue(forKey column: String) -> WriteVersion? {
    guard let index = entries.firstIndex(where: { $0.column == column }) else { return nil }
    return entries.remove(at: index).version
  }

  /// Sets `column`'s version if `version` is newer than it (or it has none); tells whether it did.
  mutating func advance(_ column: String, to version: WriteVersion) -> Bool {
    if let index = entries.firstIndex(where: { $0.column == column }) {
      guard version > entries[index].version else { return false }
      entries[index].version = version
    } else {
      entries.append((column, version))
    }
    return true
  }

  /// Adds a column known to have no version yet (as decoding does).
  mutating func append(_ column: String, _ version: WriteVersion) {
    entries.append((column, version))
  }

  /// The entries in column-name order, as they are stored.
  func sortedByColumn() -> [(column: String, version: WriteVersion)] {
    entries.sorted { $0.column < $1.column }
  }

  func makeIterator() -> IndexingIterator<[(column: String, version: WriteVersion)]> {
    entries.makeIterator()
  }

  static func == (lhs: ColumnClocks, rhs: ColumnClocks) -> Bool {
    lhs.count == rhs.count && lhs.entries.allSatisfy { rhs[$0.column] == $0.version }
  }
}
