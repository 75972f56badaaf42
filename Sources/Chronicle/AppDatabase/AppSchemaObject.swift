import GRDB

/// An object of the app's schema: not SQLite's, GRDB's or Chronicle's.
struct AppSchemaObject: Hashable {
  var type: String
  var name: String
  var tableName: String
  var sql: String?

  static func all(_ db: Database) throws -> Set<AppSchemaObject> {
    let rows = try Row.fetchAll(db, sql: """
      SELECT type, name, tbl_name, sql FROM main.sqlite_schema
      WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
        AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'
        AND name NOT LIKE 'chronicle\\_%' ESCAPE '\\'
      """)
    return Set(rows.map { AppSchemaObject(type: $0["type"], name: $0["name"], tableName: $0["tbl_name"], sql: $0["sql"]) })
  }
}
