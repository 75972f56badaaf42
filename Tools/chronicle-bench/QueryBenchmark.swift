// The query builder against hand-written GRDB, on the same plain WAL
// database (no capture), so the figures show the builder's own cost.
import Chronicle
import Foundation

@Table("items")
struct BuilderItem {
  let id: Int
  var title: String
  var count: Int
  var score: Double?
  var listID: String
}

/// The same row, read and written the way a GRDB user writes it by hand.
struct HandWrittenItem: FetchableRecord {
  var id: Int
  var title: String
  var count: Int
  var score: Double?
  var listID: String

  init(row: Row) {
    id = row[0]
    title = row[1]
    count = row[2]
    score = row[3]
    listID = row[4]
  }

  init(id: Int, title: String, count: Int, score: Double?, listID: String) {
    (self.id, self.title, self.count, self.score, self.listID) = (id, title, count, score, listID)
  }
}

struct QueryFigures {
  var handWritten = Double.infinity
  var builder = Double.infinity
}

func runQueryBenchmark(rows: Int, repeats: Int, folder: URL) throws {
  let builderItems = (1...rows).map {
    BuilderItem(id: $0, title: "Item number \($0)", count: $0 % 97, score: $0 % 5 == 0 ? nil : Double($0) / 7, listID: "list-\($0 % 13)")
  }
  let handWrittenItems = builderItems.map {
    HandWrittenItem(id: $0.id, title: $0.title, count: $0.count, score: $0.score, listID: $0.listID)
  }
  var insert = QueryFigures()
  var fetch = QueryFigures()
  for _ in 0..<repeats {
    for useBuilder in [false, true] {
      let pool = try DatabasePool(path: folder.appendingPathComponent("query-\(UUID()).sqlite").path)
      try pool.write { db in try db.execute(sql: schema) }
      let insertSeconds = try measure {
        try pool.write { db in
          if useBuilder {
            try BuilderItem.insert { builderItems }.execute(db)
          } else {
            let statement = try db.cachedStatement(sql: insertSQL)
            for item in handWrittenItems {
              try statement.execute(arguments: [item.id, item.title, item.count, item.score, item.listID])
            }
          }
        }
      }
      var fetchedCount = 0
      let fetchSeconds = try measure {
        try pool.read { db in
          if useBuilder {
            fetchedCount = try BuilderItem.all.fetchAll(db).count
          } else {
            fetchedCount = try HandWrittenItem.fetchAll(db, sql: "SELECT id, title, count, score, listID FROM items").count
          }
        }
      }
      guard fetchedCount == rows else { throw BenchmarkFailure("fetched \(fetchedCount) rows, expected \(rows)") }
      if useBuilder {
        insert.builder = min(insert.builder, insertSeconds)
        fetch.builder = min(fetch.builder, fetchSeconds)
      } else {
        insert.handWritten = min(insert.handWritten, insertSeconds)
        fetch.handWritten = min(fetch.handWritten, fetchSeconds)
      }
    }
  }
  print("\nquery builder vs hand-written GRDB, \(rows) rows, plain WAL database (no capture)")
  print("operation".padding(toLength: 46, withPad: " ", startingAt: 0) + "GRDB rows/s   builder rows/s     ratio (time)")
  for (name, figures) in [("insert \(rows) rows, 1 transaction", insert), ("fetchAll \(rows) rows", fetch)] {
    print(name.padding(toLength: 46, withPad: " ", startingAt: 0)
      + String(format: "%11.0f   %13.0f   %.2fx", Double(rows) / figures.handWritten, Double(rows) / figures.builder, figures.builder / figures.handWritten))
  }
}
