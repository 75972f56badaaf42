import GRDB

extension Database {
  /// Runs `body` with a page cache of up to `kibibytes` on this connection,
  /// then puts the connection's own setting back: for the steps that read
  /// and write a whole table's pages (a merge, a fold of the history), which
  /// SQLite's default 2 MiB would evict before they come back to them. The
  /// memory is taken only as pages are read, and handed back after.
  func withPageCache<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
    let previous = try Int.fetchOne(self, sql: "PRAGMA cache_size") ?? -2000
    guard previous >= 0 || -previous < kibibytes else { return try body() }
    try execute(sql: "PRAGMA cache_size = \(-kibibytes)")
    defer { try? execute(sql: "PRAGMA cache_size = \(previous)") }
    return try body()
  }
}
