import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The names in a folder as the file system stores them: bytes. Foundation's
/// listing leaves out names that are not UTF-8; the scan must see them to say
/// it skipped them.
enum DirectoryNames {
  /// One entry: its name when it is UTF-8, and its bytes.
  struct Entry {
    var name: String?
    var bytes: [UInt8]

    /// The name as printed: the bytes that are not UTF-8 as `\xHH`.
    var shown: String {
      if let name { return name }
      var text = "", start = 0
      while start < bytes.count {
        // The longest valid UTF-8 run from here, then one escaped byte.
        var end = bytes.count
        while end > start, String(validating: bytes[start..<end], as: UTF8.self) == nil { end -= 1 }
        if end > start {
          text += String(decoding: bytes[start..<end], as: UTF8.self)
          start = end
        } else {
          text += "\\x" + String(bytes[start], radix: 16, uppercase: true).leftPadded(to: 2)
          start += 1
        }
      }
      return text
    }
  }

  /// The entries of `path` (without `.` and `..`), or `nil` when it cannot be listed.
  static func entries(of path: String) -> [Entry]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var entries: [Entry] = []
    while let entry = readdir(directory) {
      let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
      if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
      entries.append(Entry(name: String(validating: bytes, as: UTF8.self), bytes: bytes))
    }
    return entries
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
