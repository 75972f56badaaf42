import CustomDump

/// Rows drawn as a box, one column per value of a tuple row (one for any
/// other row), each value as `customDump` prints it. Rows are divided by a
/// line when a value takes more than one line.
struct ResultTable {
  /// Each row's cells, each cell's lines.
  let cells: [[[Substring]]]

  init(rows: [some Any]) {
    cells = rows.map { row in
      Self.columns(of: row).map { value in
        var dumped = ""
        customDump(value, to: &dumped)
        return dumped.split(separator: "\n", omittingEmptySubsequences: false)
      }
    }
  }

  /// A tuple's values, or the row itself.
  static func columns(of row: Any) -> [Any] {
    let mirror = Mirror(reflecting: row)
    guard mirror.displayStyle == .tuple, !mirror.children.isEmpty else { return [row] }
    return mirror.children.map(\.value)
  }

  var text: String {
    let columnCount = cells.map(\.count).max() ?? 0
    let widths = (0..<columnCount).map { column in
      cells.map { $0.indices.contains(column) ? $0[column].map(\.count).max() ?? 0 : 0 }.max() ?? 0
    }
    let dividesRows = cells.contains { $0.contains { $0.count > 1 } }
    func rule(_ left: String, _ middle: String, _ right: String) -> String {
      left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right
    }
    var lines = [rule("┌", "┬", "┐")]
    for (index, row) in cells.enumerated() {
      let height = row.map(\.count).max() ?? 1
      for lineIndex in 0..<height {
        let parts = widths.indices.map { column -> String in
          let cellLines = row.indices.contains(column) ? row[column] : []
          let text = cellLines.indices.contains(lineIndex) ? String(cellLines[lineIndex]) : ""
          return " " + text + String(repeating: " ", count: widths[column] - text.count) + " "
        }
        lines.append("│" + parts.joined(separator: "│") + "│")
      }
      if dividesRows, index < cells.count - 1 { lines.append(rule("├", "┼", "┤")) }
    }
    lines.append(rule("└", "┴", "┘"))
    return lines.joined(separator: "\n")
  }
}
