extension String {
  /// Whether two SQL names (tables, columns) are the same name, case
  /// ignored. Names usually match exactly or differ in length; ASCII letters
  /// are folded in place, and only names with other letters are lower-cased
  /// whole: this runs for every column of every row an upcaster reshapes.
  func isSameSQLName(as other: String) -> Bool {
    if self == other { return true }
    var left = utf8.makeIterator(), right = other.utf8.makeIterator()
    while true {
      switch (left.next(), right.next()) {
      case (nil, nil):
        return true
      case (let a?, let b?):
        if a == b { continue }
        if a >= 0x80 || b >= 0x80 { return lowercased() == other.lowercased() }
        let foldedA = a >= 0x41 && a <= 0x5A ? a | 0x20 : a
        let foldedB = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
        if foldedA != foldedB { return false }
      default:
        // Different lengths: equal only if lower-casing changes a length.
        return (utf8.contains { $0 >= 0x80 } || other.utf8.contains { $0 >= 0x80 }) && lowercased() == other.lowercased()
      }
    }
  }
}
