/// What loading and saving the merge state of a table's rows needs from
/// the store's ``MergeDictionary``, found once per batch.
struct StoredTableForm {
  /// The table's name number.
  var table: Int64
  /// Each column's name number, by column index.
  var columnNumbers: [Int64]
  /// The column indexes in name-number order: the order states store columns in.
  var columnsInNumberOrder: [Int]
  /// The column index of each name number below ``numbersInArray`` (-1: a
  /// name the table does not have; -2: not looked up yet), by number.
  var columnOfNumber: [Int]
  /// The same for larger numbers.
  var columnOfLargerNumber: [Int64: Int] = [:]
  static let numbersInArray = 4_096

  /// The column index of a name number looked up before (-1: the table has
  /// no such column); nil when it was not.
  func column(ofNumber number: Int64) -> Int? {
    if number >= 0, number < Self.numbersInArray {
      let column = number < columnOfNumber.count ? columnOfNumber[Int(number)] : -2
      return column == -2 ? nil : column
    }
    return columnOfLargerNumber[number]
  }

  mutating func setColumn(_ column: Int, ofNumber number: Int64) {
    guard number >= 0, number < Self.numbersInArray else {
      columnOfLargerNumber[number] = column
      return
    }
    if number >= columnOfNumber.count { columnOfNumber += repeatElement(-2, count: Int(number) + 1 - columnOfNumber.count) }
    columnOfNumber[Int(number)] = column
  }
}
