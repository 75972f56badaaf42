/// The rows of a ``FetchAll`` grouped into sections, as SQLiteData's
/// `ResultsSectionCollection` is: `$reminders.sections` of
/// `@FetchAll(Reminder.order(by: \.title), sectionBy: \.category)`.
///
/// ```swift
/// ForEach($reminders.sections) { section in
///   Section(section.name ?? "None") {
///     ForEach(section) { reminder in Text(reminder.title) }
///   }
/// }
/// ```
///
/// Sections come in the order of their first row, which is the order of
/// the sectioning expression (the fetch orders by it first); rows within a
/// section keep the query's order. A fetch without sections has one
/// section, named nil, holding every row (none when there are no rows).
public struct ResultsSectionCollection<Element, SectionName: Hashable> {
  /// Every row, in the order fetched.
  let elements: [Element]
  private let sections: [(name: SectionName, positions: SectionPositions)]

  /// Every row in one section named `name`, none when there are no rows.
  init(elements: [Element], sectionName name: SectionName) {
    self.elements = elements
    sections = elements.isEmpty ? [] : [(name, .range(elements.indices))]
  }

  /// Rows with their section names, grouped by name in the order each
  /// name first appears. Runs of one name stay a range of positions.
  init(namedElements: [(Element, SectionName)]) {
    elements = namedElements.map(\.0)
    var order: [SectionName] = []
    var positions: [SectionName: [Int]] = [:]
    for (position, (_, name)) in namedElements.enumerated() {
      if positions[name] == nil { order.append(name) }
      positions[name, default: []].append(position)
    }
    sections = order.map { name in
      let members = positions[name]!
      let isRun = members.last! - members.first! + 1 == members.count
      return (name, isRun ? .range(members.first!..<(members.last! + 1)) : .list(members))
    }
  }

  /// The names of the sections, in order.
  public var sectionNames: [SectionName] { sections.map(\.name) }

  /// The section named `name`, if there is one.
  public subscript(sectionName name: SectionName) -> ResultsSection<Element, SectionName>? {
    index(ofSectionNamed: name).map { self[$0] }
  }

  /// Whether there is a section named `name`.
  public func contains(sectionName name: SectionName) -> Bool { index(ofSectionNamed: name) != nil }

  /// The position of the section named `name`, if there is one.
  public func index(ofSectionNamed name: SectionName) -> Int? { sections.firstIndex { $0.name == name } }
}

extension ResultsSectionCollection: RandomAccessCollection {
  public var startIndex: Int { sections.startIndex }
  public var endIndex: Int { sections.endIndex }

  public subscript(position: Int) -> ResultsSection<Element, SectionName> {
    let section = sections[position]
    return ResultsSection(name: section.name, base: elements, positions: section.positions)
  }
}

extension ResultsSectionCollection: Sendable where Element: Sendable, SectionName: Sendable {}

extension ResultsSectionCollection: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}

/// The rows of one section, identified by its name.
public struct ResultsSection<Element, SectionName: Hashable>: Identifiable {
  /// The section's name: the sectioning value its rows share, as text.
  public let name: SectionName
  private let base: [Element]
  private let positions: SectionPositions

  init(name: SectionName, base: [Element], positions: SectionPositions) {
    self.name = name
    self.base = base
    self.positions = positions
  }

  /// The section's identity: its name.
  public var id: SectionName { name }
}

extension ResultsSection: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { positions.count }
  public subscript(position: Int) -> Element { base[positions[position]] }
}

extension ResultsSection: Sendable where Element: Sendable, SectionName: Sendable {}

extension ResultsSection: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.elementsEqual(rhs) }
}

/// Where a section's rows are among all the rows: one run, or scattered
/// (rows whose names SQLite orders as equal but that differ as text).
enum SectionPositions: Sendable {
  case range(Range<Int>)
  case list([Int])

  var count: Int {
    switch self {
    case .range(let range): range.count
    case .list(let list): list.count
    }
  }

  subscript(position: Int) -> Int {
    switch self {
    case .range(let range): range.lowerBound + position
    case .list(let list): list[position]
    }
  }
}
