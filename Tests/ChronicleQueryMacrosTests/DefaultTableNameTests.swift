import ChronicleNaming
import Testing

/// The table name `@Table` and `AliasName` give a type without one: lower
/// camel case, pluralized as upstream pluralizes (its inflection cases).
@Suite("Default table names")
struct DefaultTableNameTests {
  @Test(arguments: [
    ("Bee", "bees"), ("Boy", "boys"), ("Buzz", "buzzes"), ("Category", "categories"), ("Person", "persons"),
    ("Placebo", "placebos"), ("Pox", "poxes"), ("Status", "statuses"), ("User", "users"), ("Zoo", "zoos"),
    ("RemindersList", "remindersLists"), ("Branch", "branches"), ("Wish", "wishes"), ("R", "rs"),
  ])
  func pluralizesLikeUpstream(typeName: String, tableName: String) {
    #expect(defaultTableName(typeName) == tableName)
  }
}
