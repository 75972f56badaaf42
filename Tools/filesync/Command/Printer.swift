import Chronicle
import FileSync
import Foundation

/// How filesync words its reports.
enum Printer {
  static func scan(_ report: ScanReport) {
    for path in report.added { print("added    \(path)") }
    for path in report.edited { print("edited   \(path)") }
    for rename in report.renamed { print("renamed  \(rename.from) -> \(rename.to)") }
    for path in report.deleted { print("deleted  \(path)") }
    for path in report.changing { print("changing \(path) (being written; taken at the next scan)") }
    for skipped in report.skipped { printError("skipped  \(skipped.path): \(skipped.reason)") }
    print(
      "scan: \(report.added.count) added, \(report.edited.count) edited, \(report.renamed.count) renamed, \(report.deleted.count) deleted, \(report.unchanged) unchanged")
  }

  static func sync(_ report: FileSyncReport) {
    scan(report.scan)
    print("index: sent \(report.sentEvents) events, merged \(report.merged.appliedEvents) (\(report.merged.duplicateEvents) already held)")
    if !report.incompleteSources.isEmpty { print("index: \(report.incompleteSources.count) files still arriving in the shared folder (taken at a later sync)") }
    for error in report.rejected { printError("rejected \(error)") }
    print("content: sent \(report.sentChunks.stored) chunks (\(bytes(report.sentChunks.bytes))), received \(report.receivedChunks.stored) chunks (\(bytes(report.receivedChunks.bytes)))")
    conflicts(report.conflicts)
    materialized(report.materialized)
  }

  static func refresh(_ scan: ScanReport, _ copies: [ConflictCopy], _ materialized: MaterializeReport) {
    if scan.changeCount > 0 { Printer.scan(scan) }
    conflicts(copies)
    if materialized.written.count + materialized.removed.count + materialized.refused.count > 0 { Printer.materialized(materialized) }
    fflush(nil)
  }

  static func conflicts(_ copies: [ConflictCopy]) {
    for copy in copies { print("conflict  \(copy.path): the version of \(copy.losingPeer) lost; kept as \(copy.copyPath)") }
  }

  static func materialized(_ report: MaterializeReport) {
    for path in report.written { print("wrote    \(path)") }
    for path in report.removed { print("removed  \(path)") }
    for path in report.changedLocally { print("kept     \(path) (changed here since the scan; the next sync records it)") }
    for path in report.waitingForContent { print("waiting  \(path) (content not received yet)") }
    for refusal in report.refused { printError("refused  \(shown(refusal.path)): \(refusal.reason)") }
    print("folder: \(report.written.count) written, \(report.removed.count) removed, \(report.waitingForContent.count) waiting for content, \(report.refused.count) refused")
  }

  /// A path as printed: control characters (a NUL a peer put in a name)
  /// escaped, so the line stays readable and whole.
  static func shown(_ path: String) -> String {
    guard path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return path }
    return path.unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
  }

  static func list(_ title: String, _ items: [String]) {
    guard !items.isEmpty else { return }
    print("\(title) (\(items.count)):")
    for item in items.prefix(50) { print("  \(item)") }
    if items.count > 50 { print("  … and \(items.count - 50) more") }
  }

  static func bytes(_ count: Int) -> String {
    guard count >= 1024 else { return "\(count) B" }
    var value = Double(count) / 1024
    for unit in ["KiB", "MiB", "GiB"] {
      if value < 1024 || unit == "GiB" { return String(format: "%.1f %@", value, unit) }
      value /= 1024
    }
    return "\(count) B"
  }

  static func time(_ milliseconds: Int) -> String {
    formatter("yyyy-MM-dd HH:mm:ss.SSS").string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)) + "Z"
  }

  /// UTC times as `history` prints them, ISO 8601, or milliseconds since 1970.
  static func parseTime(_ text: String) -> Int? {
    if let milliseconds = Int(text) { return milliseconds }
    var trimmed = text.replacingOccurrences(of: "T", with: " ")
    if trimmed.hasSuffix("Z") { trimmed.removeLast() }
    for pattern in ["yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
      if let date = formatter(pattern).date(from: trimmed) { return Int((date.timeIntervalSince1970 * 1000).rounded()) }
    }
    return nil
  }

  private static func formatter(_ pattern: String) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = pattern
    return formatter
  }
}
