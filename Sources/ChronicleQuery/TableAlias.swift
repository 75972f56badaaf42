/// Another name for a table, to read it twice in one query (a self-join):
///
/// ```swift
/// enum Manager: TableAlias { typealias Table = Employee }
/// Employee.leftJoin(Employee.all.as(Manager.self)) { $0.managerID.eq($1.id) }
/// ```
public protocol TableAlias {
  associatedtype Table: ChronicleQuery.Table
  /// The name in SQL; the type's name with a lowercase first letter by default.
  static var aliasName: String { get }
}

extension TableAlias {
  public static var aliasName: String {
    let name = String(describing: Self.self)
    return name.prefix(1).lowercased() + name.dropFirst()
  }
}
