import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// `contains`, `hasPrefix` and `hasSuffix` look for their text as written:
/// `%` and `_` in it are escaped (`LIKE '%50\%%' ESCAPE '\'`). Upstream
/// writes a bare `LIKE '%50%%'`, where they are wildcards; the same
/// searches written that way find other rows, shown side by side.
@Suite("Query builder: LIKE patterns keep % and _ as text")
struct LikePatternTests {
  @Test func wildcardCharactersAreText() throws {
    let fixture = try BuilderClosureAndCombinatorTests().seeded()
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "50% off", useCount: 1); Tag(title: "5000 off", useCount: 2); Tag(title: "snake_case", useCount: 3); Tag(title: "snakes", useCount: 4); Tag(title: "100%", useCount: 5) }.execute(db)
    }
    var lines: [String] = []
    func run(_ query: some SelectStatement<String>) throws {
      lines.append(query.query.description)
      lines.append("  -> " + (try fixture.database.read { try query.fetchAll($0) }).joined(separator: ", "))
    }
    try run(Tag.where { $0.title.contains("0%") }.order(by: \.title).select(\.title))
    try run(Tag.where { #sql("\($0.title) LIKE '%0%%'") }.order(by: \.title).select(\.title))
    try run(Tag.where { $0.title.hasPrefix("snake_") }.order(by: \.title).select(\.title))
    try run(Tag.where { #sql("\($0.title) LIKE 'snake_%'") }.order(by: \.title).select(\.title))
    try run(Tag.where { $0.title.hasSuffix("%") || $0.title.contains("\\") }.order(by: \.title).select(\.title))
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      #"""
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" LIKE '%0\%%' ESCAPE '\')
      ORDER BY "tags"."title"
        -> 100%, 50% off
      SELECT "tags"."title"
      FROM "tags"
      WHERE "tags"."title" LIKE '%0%%'
      ORDER BY "tags"."title"
        -> 100%, 50% off, 5000 off
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" LIKE 'snake\_%' ESCAPE '\')
      ORDER BY "tags"."title"
        -> snake_case
      SELECT "tags"."title"
      FROM "tags"
      WHERE "tags"."title" LIKE 'snake_%'
      ORDER BY "tags"."title"
        -> snake_case, snakes
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."title" LIKE '%\%' ESCAPE '\') OR ("tags"."title" LIKE '%\\%' ESCAPE '\'))
      ORDER BY "tags"."title"
        -> 100%
      """#
    }
  }
}
