/// The name a type gets in SQL when none is given: its name in lower camel
/// case, pluralized. `@Table` names tables with it at compile time and
/// `AliasName` names aliases with it at run time, so both agree.
///
/// `Item` → `items`, `RemindersList` → `remindersLists`, `Category` →
/// `categories`, `R` → `rs`.
package func defaultTableName(_ typeName: String) -> String {
  var name = typeName
  if let first = name.first { name = first.lowercased() + name.dropFirst() }
  let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
  if name.hasSuffix("y"), name.count > 1, !vowels.contains(name[name.index(name.endIndex, offsetBy: -2)]) {
    return name.dropLast() + "ies"
  }
  if ["s", "x", "z", "ch", "sh"].contains(where: { name.hasSuffix($0) }) { return name + "es" }
  return name + "s"
}
