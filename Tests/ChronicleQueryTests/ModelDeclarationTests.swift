import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

// Model declarations as upstream's compile-time tests write them: private
// types and a group nested in one, a table beside the type it stores, a
// property named by a keyword, defaults that `Columns(…)` fills in, and a
// draft's own `Columns`.

/// A private table without a primary key, whose column group is nested in it.
@Table("mdShipments") private struct Shipment {
  @Selection struct Size {
    var width: Int
    var height: Int
  }
  var label: String
  var size: Size?
}

enum MDCatalog {
  struct Dimensions: Codable, Equatable {
    var depth = 0
  }
  enum Finish: String, QueryBindable {
    case matte, gloss
  }

  /// Its columns' types are declared beside it, not in it.
  @Table("mdPanels") struct Panel: Equatable {
    let id: Int
    @Column(as: Dimensions.JSONRepresentation.self)
    var dimensions: Dimensions
    var finish: Finish = .matte
  }

  /// A selection whose columns' types are declared beside it, not in it.
  @Selection struct PanelSummary: Equatable {
    var finish: Finish
    @Column(as: Dimensions.JSONRepresentation.self)
    var dimensions: Dimensions
  }
}

@Selection private struct Stamp {
  var `class` = Date(timeIntervalSince1970: 0)
  var note = Optional("hi")
  var count = 3
  var title: String
}

@Table("mdBadges") private struct Badge {
  @Column(as: UUID.BytesRepresentation.self)
  var id = UUID()
  var `default`: String
}

/// A private enum table, and an enum selection nested in a private type.
@Table("mdSignals") private enum Signal {
  case level(Int)
  case label(String)
}

@Table("mdProbes") private struct Probe {
  @Selection enum Reading {
    case value(Double)
    case missing(String)
  }
  var reading: Reading
}

@Suite("Query builder: model declarations as upstream's compile-time tests write them")
struct ModelDeclarationTests {
  @Test func aPrivateTableAndTheGroupNestedInItReadAndWriteRows() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdShipments" ("label" TEXT NOT NULL, "width" INTEGER, "height" INTEGER) STRICT"#)
    }
    let statements: [any QueryStatement] = [
      Shipment.insert {
        Shipment(label: "crate", size: Shipment.Size(width: 3, height: 4))
        Shipment(label: "letter", size: nil)
      },
      Shipment.order(by: \.label).select { ($0.label, $0.size.width, $0.size.height) },
      Shipment.where { $0.size.width.isNot(nil) }.select { ($0.label, $0.size.height) },
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "mdShipments"
      ("label", "width", "height")
      VALUES
      ('crate', 3, 4), ('letter', NULL, NULL)
      SELECT "mdShipments"."label", "mdShipments"."width", "mdShipments"."height"
      FROM "mdShipments"
      ORDER BY "mdShipments"."label"
        ("crate", Optional(3), Optional(4))
        ("letter", nil, nil)
      SELECT "mdShipments"."label", "mdShipments"."height"
      FROM "mdShipments"
      WHERE ("mdShipments"."width" IS NOT NULL)
        ("crate", Optional(4))
      """
    }
    // The whole private row, its group read back or nil.
    let rows = try fixture.database.read { db in try Shipment.order(by: \.label).fetchAll(db) }
    #expect(rows.map { "\($0.label): \($0.size.map { "\($0.width)x\($0.height)" } ?? "none")" } == ["crate: 3x4", "letter: none"])
  }

  @Test func aTableReadsTypesDeclaredBesideIt() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdPanels" ("id" INTEGER PRIMARY KEY, "dimensions" TEXT NOT NULL, "finish" TEXT NOT NULL DEFAULT 'matte') STRICT"#)
    }
    let statements: [any QueryStatement] = [
      MDCatalog.Panel.insert {
        MDCatalog.Panel(id: 1, dimensions: MDCatalog.Dimensions(depth: 2), finish: .gloss)
        MDCatalog.Panel.Draft(dimensions: MDCatalog.Dimensions(depth: 5))
      },
      MDCatalog.Panel.all,
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "mdPanels"
      ("id", "dimensions", "finish")
      VALUES
      (1, '{"depth":2}', 'gloss');
      INSERT INTO "mdPanels"
      ("dimensions", "finish")
      VALUES
      ('{"depth":5}', 'matte')
      SELECT "mdPanels"."id", "mdPanels"."dimensions", "mdPanels"."finish"
      FROM "mdPanels"
        Panel(id: 1, dimensions: ChronicleQueryTests.MDCatalog.Dimensions(depth: 2), finish: ChronicleQueryTests.MDCatalog.Finish.gloss)
        Panel(id: 2, dimensions: ChronicleQueryTests.MDCatalog.Dimensions(depth: 5), finish: ChronicleQueryTests.MDCatalog.Finish.matte)
      """
    }
  }

  /// Upstream's CompileTimeTests: a `@Selection` nested in a type, its
  /// columns' types declared beside it (the selection's conformance code,
  /// at file scope, names them through aliases it declares in the type).
  @Test func aSelectionReadsTypesDeclaredBesideIt() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdPanels" ("id" INTEGER PRIMARY KEY, "dimensions" TEXT NOT NULL, "finish" TEXT NOT NULL DEFAULT 'matte') STRICT"#)
      try MDCatalog.Panel.insert { MDCatalog.Panel(id: 1, dimensions: MDCatalog.Dimensions(depth: 3), finish: .gloss) }.execute(db)
    }
    let summaries = MDCatalog.Panel.select { MDCatalog.PanelSummary.Columns(finish: $0.finish, dimensions: $0.dimensions) }
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(summaries), as: .lines) {
      """
      SELECT "mdPanels"."finish" AS "finish", "mdPanels"."dimensions" AS "dimensions"
      FROM "mdPanels"
      PanelSummary(finish: ChronicleQueryTests.MDCatalog.Finish.gloss, dimensions: ChronicleQueryTests.MDCatalog.Dimensions(depth: 3))
      """
    }
  }

  @Test func columnsLeftOutTakeThePropertysDefault() throws {
    let fixture = try RemindersDatabase()
    let statements: [any QueryStatement] = [
      Values(Stamp.Columns(title: "first")),
      Values(Stamp.Columns(class: Date(timeIntervalSince1970: 86_400), note: #sql("NULL"), count: 1 + 1, title: "second")),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      SELECT '1970-01-01 00:00:00.000' AS "class", 'hi' AS "note", 3 AS "count", 'first' AS "title"
        Stamp(class: 1970-01-01 00:00:00 +0000, note: Optional("hi"), count: 3, title: "first")
      SELECT '1970-01-02 00:00:00.000' AS "class", NULL AS "note", 2 AS "count", 'second' AS "title"
        Stamp(class: 1970-01-02 00:00:00 +0000, note: nil, count: 2, title: "second")
      """
    }
  }

  @Test func privateEnumsAreTablesAndSelections() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdSignals" ("level" INTEGER, "label" TEXT) STRICT"#)
      try Signal.insert {
        Signal.level(3)
        Signal.label("high")
      }.execute(db)
    }
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdProbes" ("value" REAL, "missing" TEXT) STRICT"#)
      try Probe.insert { Probe(reading: .value(2.5)) }.execute(db)
    }
    let (levels, probes, reading) = try fixture.database.read { db in
      (try Signal.where { $0.level.isNot(nil) }.select(\.level).fetchAll(db),
       try Probe.all.fetchAll(db),
       try Values(Probe.Reading.Columns.missing("no sensor")).fetchOne(db))
    }
    #expect(levels == [3])
    guard probes.count == 1, case .value(let value) = probes[0].reading else { Issue.record("read \(probes.map(\.reading))"); return }
    #expect(value == 2.5)
    guard case .missing(let why) = reading else { Issue.record("read \(String(describing: reading))"); return }
    #expect(why == "no sensor")
  }

  @Test func aDraftsColumnsLeaveItsPrimaryKeyOut() throws {
    #expect(Badge.Draft(default: "gold").id == nil)
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "mdBadges" ("id" BLOB PRIMARY KEY NOT NULL DEFAULT (randomblob(16)), "default" TEXT NOT NULL) STRICT"#)
    }
    let id = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    let statements: [any QueryStatement] = [
      Badge.insert { Badge(id: id, default: "silver") },
      Badge.select(\.default),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "mdBadges"
      ("id", "default")
      VALUES
      (X'0000000000000000000000000000000A', 'silver')
      SELECT "mdBadges"."default"
      FROM "mdBadges"
        silver
      """
    }
    assertInlineSnapshot(of: Badge.Draft.Columns(default: "gold").queryFragment.description, as: .lines) {
      """
      NULL, 'gold'
      """
    }
  }
}
