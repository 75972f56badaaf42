import Foundation
import GRDB

/// Keeps the last logged application schema in `chronicle_schema`.
enum SchemaStore {
  static func loggedSnapshot(_ db: Database) throws -> SchemaSnapshot {
    let version = try ChronicleMeta(db: db).value(.loggedSchemaVersion) ?? -1
    let objects = try Row.fetchAll(db, sql: "SELECT type, name, table_name, root_page, sql, columns FROM chronicle_schema ORDER BY position").map { row in
      SchemaSnapshot.Object(
        type: row["type"], name: row["name"], tableName: row["table_name"], rootPage: row["root_page"], sql: row["sql"],
        columns: try JSONDecoder().decode([String].self, from: Data((row["columns"] as String).utf8)))
    }
    return SchemaSnapshot(version: version, objects: objects)
  }

  static func saveLoggedSnapshot(_ snapshot: SchemaSnapshot, _ db: Database) throws {
    try db.execute(sql: "DELETE FROM chronicle_schema")
    for (position, object) in snapshot.objects.enumerated() {
      let columns = String(decoding: try JSONEncoder().encode(object.columns), as: UTF8.self)
      try db.execute(
        sql: "INSERT INTO chronicle_schema (position, type, name, table_name, root_page, sql, columns) VALUES (?, ?, ?, ?, ?, ?, ?)",
        arguments: [position, object.type, object.name, object.tableName, object.rootPage, object.sql, columns])
    }
    try ChronicleMeta(db: db).set(.loggedSchemaVersion, to: snapshot.version)
  }
}
