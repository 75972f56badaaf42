import ChronicleTestSupport
import Testing

@testable import Chronicle

/// SQL names compare with case ignored, as SQLite compares identifiers, and
/// as lower-casing both would (the comparison upcasters ran before).
@Suite("SQL names: compared with case ignored")
struct SQLNameTests {
  @Test func namesCompareAsLowerCasingBothWould() {
    let fixed: [(String, String)] = [
      ("title", "title"), ("Title", "tITLE"), ("title", "titles"), ("", ""), ("a", ""), ("list_id", "LIST_ID"),
      ("[x]", "{x}"), ("@", "`"), ("Zeta", "zetA"), ("Émile", "émile"), ("ÉMILE", "emile"), ("straße", "STRASSE"), ("ǅ", "ǆ"),
    ]
    for (a, b) in fixed {
      #expect(a.isSameSQLName(as: b) == (a.lowercased() == b.lowercased()), "\(a) vs \(b)")
    }
    // Random names over letters that fold and characters next to them in ASCII.
    let seed: UInt64 = 20261125
    var random = SeededGenerator(seed: seed)
    let alphabet = Array("aAzZ@[`{_0é")
    for _ in 0..<2_000 {
      let a = String((0..<Int.random(in: 0...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
      var b = String(a.map { character in Bool.random(using: &random) ? Character(character.uppercased()) : character })
      if Int.random(in: 0..<4, using: &random) == 0 { b.append(alphabet.randomElement(using: &random)!) }
      #expect(a.isSameSQLName(as: b) == (a.lowercased() == b.lowercased()), "seed \(seed): \(a) vs \(b)")
    }
  }
}
