/// A select of a table's whole rows, narrowed by conditions: what
/// `Item.where { … }` returns, and the type of reusable scopes:
///
/// ```swift
/// extension Item {
///   static let active = Item.where { !$0.isArchived }
///   static let inStock = Item.where(\.isInStock)
///   static func createdAfter(_ date: Date) -> Where<Item> { Item.where { $0.createdAt > date } }
/// }
/// extension Where<Item> {
///   func matching(_ text: String) -> Where<Item> { self.where { $0.title.contains(text) } }
/// }
///
/// Item.active.inStock.matching("phone").order(by: \.title)
/// ```
public typealias Where<T: Table> = Select<T, T>

extension Select where Output == From {
  /// Chains a scope declared as a static property: `Item.active.inStock`
  /// has the conditions of both.
  public subscript(dynamicMember scope: KeyPath<From.Type, Select<From, From>>) -> Self {
    and(From.self[keyPath: scope])
  }

  /// Chains a static select that joins other tables or chooses columns
  /// (`static let withReminders = group(by: \.id).leftJoin(…)`):
  /// `Tag.where { … }.order(by: \.title).withReminders` is that select with
  /// this one's conditions, grouping and order before its own, and this
  /// one's limit where it sets none.
  public subscript<Scope: _ClauseSelect>(dynamicMember scope: KeyPath<From.Type, Scope>) -> Scope {
    let selected = From.self[keyPath: scope]
    // Every clause select (Select, Select2…Select5) provides its clauses.
    guard let provider = selected as? any SelectClausesProvider else { preconditionFailure("\(Scope.self) has no clauses") }
    return (preceded(provider) as any SelectClausesProvider) as! Scope
  }

  /// `scope` with this select's clauses before its own.
  private func preceded<Scope: SelectClausesProvider>(_ scope: Scope) -> Scope {
    var scope = scope
    scope.clauses = clauses.preceding(scope.clauses)
    return scope
  }

}
