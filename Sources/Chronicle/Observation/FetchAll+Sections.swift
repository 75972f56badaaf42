import ChronicleQuery
import GRDB

// `FetchAll` with its rows grouped into sections, as SQLiteData spells it:
//
//   @FetchAll(Reminder.order(by: \.title), sectionBy: \.category) var reminders
//   ForEach($reminders.sections) { section in Section(section.name ?? "") { … } }
//
// The fetch orders by the sectioning expression first, then by the query's
// own order, and names each row's section by the expression's value as
// text. A closure that gives no sectioning (`if grouped { $0.category }`)
// fetches the rows in one section.

extension FetchAll {
  /// Every row of `Element`'s table, in sections by `sectioning`.
  public init(
    wrappedValue: [Element] = [], @SectioningBuilder sectionBy sectioning: (Element.TableColumns) -> Sectioning?,
    database: (any DatabaseReader)? = nil
  ) where Element: Table {
    self.init(wrappedValue: wrappedValue, Element.all, sectionBy: sectioning, database: database)
  }

  /// The rows of `statement`, in sections by `sectioning`:
  /// `@FetchAll(Reminder.order(by: \.title), sectionBy: { $0.category.desc() })`.
  public init<From: Table>(
    wrappedValue: [Element] = [], _ statement: Select<From, Element>,
    @SectioningBuilder sectionBy sectioning: (From.TableColumns) -> Sectioning?, database: (any DatabaseReader)? = nil
  ) {
    self.init(
      wrappedValue: wrappedValue, fetching: Self.sections(of: statement, statement.sectioned(by: sectioning)), database: database,
      delivering: nil)
  }

  /// The rows of `statement`, in sections by `sectioning`, delivered by
  /// `scheduler` (loads too): `scheduler: .mainActor`.
  public init<From: Table>(
    wrappedValue: [Element] = [], _ statement: Select<From, Element>,
    @SectioningBuilder sectionBy sectioning: (From.TableColumns) -> Sectioning?, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) {
    self.init(
      wrappedValue: wrappedValue, fetching: Self.sections(of: statement, statement.sectioned(by: sectioning)), database: database,
      delivering: scheduler)
  }

  /// The rows of `statement`, in sections by a text column, delivered by `scheduler`.
  public init<From: Table, Name>(
    wrappedValue: [Element] = [], _ statement: Select<From, Element>,
    sectionBy column: KeyPath<From.TableColumns, TableColumn<From, Name>>, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) where Name: SectionNameColumn {
    self.init(
      wrappedValue: wrappedValue, statement, sectionBy: { Name.sectioning($0[keyPath: column]) }, database: database,
      scheduler: scheduler)
  }

  /// The rows of `statement`, in sections by a text column: `sectionBy: \.category`.
  public init<From: Table, Name>(
    wrappedValue: [Element] = [], _ statement: Select<From, Element>,
    sectionBy column: KeyPath<From.TableColumns, TableColumn<From, Name>>, database: (any DatabaseReader)? = nil
  ) where Name: SectionNameColumn {
    self.init(wrappedValue: wrappedValue, statement, sectionBy: { Name.sectioning($0[keyPath: column]) }, database: database)
  }

  /// Every row of `Element`'s table, in sections by a text column.
  public init<Name>(
    wrappedValue: [Element] = [], sectionBy column: KeyPath<Element.TableColumns, TableColumn<Element, Name>>,
    database: (any DatabaseReader)? = nil
  ) where Element: Table, Name: SectionNameColumn {
    self.init(wrappedValue: wrappedValue, Element.all, sectionBy: column, database: database)
  }

  /// Replaces the query with `statement` in sections by `sectioning`, and
  /// returns once its first rows are there, with the subscription that
  /// stops this observation.
  @discardableResult
  public func load<From: Table>(
    _ statement: Select<From, Element>, @SectioningBuilder sectionBy sectioning: (From.TableColumns) -> Sectioning?
  ) async throws -> FetchSubscription {
    try await observation.load(Self.sections(of: statement, statement.sectioned(by: sectioning)))
  }

  /// Replaces the query with `statement` in sections by a text column.
  @discardableResult
  public func load<From: Table, Name>(
    _ statement: Select<From, Element>, sectionBy column: KeyPath<From.TableColumns, TableColumn<From, Name>>
  ) async throws -> FetchSubscription where Name: SectionNameColumn {
    try await load(statement, sectionBy: { Name.sectioning($0[keyPath: column]) })
  }

  /// The fetch of `statement`'s rows in the sections `sectioned` gives,
  /// or in one when it is nil (the sectioning closure gave none).
  static func sections(
    of statement: some QueryStatement<Element>, _ sectioned: SectionedSelect<Element>?
  ) -> @Sendable (Database) throws -> ResultsSectionCollection<Element, String?> {
    guard let sectioned else { return unsectioned(statement) }
    return { db in ResultsSectionCollection(namedElements: try sectioned.fetchAll(db)) }
  }
}

/// A column type whose values name sections: `String` and `String?`.
public protocol SectionNameColumn: QueryRepresentable {
  /// The column as a sectioning.
  static func sectioning<Root>(_ column: TableColumn<Root, Self>) -> Sectioning
}

extension String: SectionNameColumn {
  public static func sectioning<Root>(_ column: TableColumn<Root, String>) -> Sectioning {
    Sectioning(SQLQueryExpression<String>(column))
  }
}

extension Optional: SectionNameColumn where Wrapped == String {
  public static func sectioning<Root>(_ column: TableColumn<Root, String?>) -> Sectioning {
    Sectioning(SQLQueryExpression<String?>(column))
  }
}
