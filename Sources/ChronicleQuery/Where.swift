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

}
