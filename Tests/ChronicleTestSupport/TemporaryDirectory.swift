import Foundation

/// A fresh directory for one test's files, removed at the end.
public final class TemporaryDirectory {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The path of `name` inside the directory.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// Removes the directory and what is in it. Databases of the test may
  /// still be closing on other threads, deleting their `-wal` and `-shm`
  /// files meanwhile, which fails a single `removeItem` midway (and left
  /// hundreds of directories behind per run): each entry goes on its own,
  /// a few rounds over.
  deinit {
    let files = FileManager.default
    for _ in 0..<5 {
      for entry in (try? files.contentsOfDirectory(atPath: url.path)) ?? [] {
        try? files.removeItem(at: url.appendingPathComponent(entry))
      }
      if (try? files.removeItem(at: url)) != nil || !files.fileExists(atPath: url.path) { return }
    }
  }
}
