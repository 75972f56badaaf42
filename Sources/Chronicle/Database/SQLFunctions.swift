import Foundation
import GRDB

extension Database {
  /// Registers the SQL functions Chronicle's schemas rely on:
  /// `uuid()`, a random (version 4) UUID as lowercase text, so that
  /// `DEFAULT (uuid())` works as in SQLiteData schemas.
  ///
  /// Chronicle registers them on every connection it opens; call this on
  /// other GRDB connections that read or replay Chronicle databases.
  public func addChronicleFunctions() {
    add(function: Self.uuidFunction)
  }

  private static let uuidFunction = DatabaseFunction("uuid", argumentCount: 0, pure: false) { _ in
    UUID().uuidString.lowercased()
  }
}
