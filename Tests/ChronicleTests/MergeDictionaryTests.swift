import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// The numbers merge state stores for names and peers: given once, read back
/// the same, and compared between two files before merge state is copied
/// from one to the other as stored.
@Suite("Merge state: numbered names and peers")
struct MergeDictionaryTests {
  func makeFile(_ directory: TemporaryDirectory, _ name: String) throws -> DatabaseQueue {
    let queue = try DatabaseQueue(path: directory.path(name))
    try queue.write { db in try InternalSchema.migrate(db) }
    return queue
  }

  @Test func numbersAreGivenOnceAndReadBack() throws {
    let directory = try TemporaryDirectory()
    let peer = PeerID.generate()
    try makeFile(directory, "a.sqlite").write { db in
      let dictionary = MergeDictionary(db)
      let items = try dictionary.number(ofName: "items")
      #expect(try dictionary.number(ofName: "title") == items + 1)
      #expect(try dictionary.number(ofName: "items") == items)
      #expect(try dictionary.number(ofOrigin: peer) == 1)
      // Another cache over the same transaction reads the same numbers.
      let other = MergeDictionary(db)
      #expect(try other.name(items) == "items" && other.origin(1) == peer)
      #expect(try other.number(ofName: "Items") == items + 2)  // names are exact; renames look them up ignoring case
      #expect(try other.numbers(ofNameIgnoringCase: "ITEMS").sorted() == [items, items + 2])
      #expect(throws: ChronicleError.self) { try other.name(999) }
    }
  }

  @Test func filesAgreeUntilOneGivesANumberTheOtherGaveToSomethingElse() throws {
    let directory = try TemporaryDirectory()
    let live = try makeFile(directory, "live.sqlite")
    let shadow = try makeFile(directory, "shadow.sqlite")
    let peer = PeerID.generate()
    try live.write { db in _ = try MergeDictionary(db).number(ofName: "items") }
    try shadow.write { db in
      try MergeDictionary.insert(try live.read { try MergeDictionary.entries($0) }, db)
      let dictionary = MergeDictionary(db)
      _ = try dictionary.number(ofName: "title")
      _ = try dictionary.number(ofOrigin: peer)
    }
    func agrees() throws -> Bool {
      try live.writeWithoutTransaction { db in
        try db.execute(sql: "ATTACH DATABASE ? AS shadow", arguments: [directory.path("shadow.sqlite")])
        defer { try? db.execute(sql: "DETACH DATABASE shadow") }
        return try MergeDictionary.agrees(with: "shadow", db)
      }
    }
    #expect(try agrees())
    // The live file numbers a name of its own meanwhile: the shadow's "title" has that number.
    try live.write { db in _ = try MergeDictionary(db).number(ofName: "count") }
    #expect(try !agrees())
  }
}
