import Chronicle
import Testing

/// With `import Chronicle`, Swift's own methods on plain values keep
/// their meaning: the builder's `contains`, `hasPrefix`, `count` and
/// `first` overloads must not capture them (upstream's overload
/// favorability and optional-call regression cases).
@Suite("Query builder: the standard library's methods on plain values")
struct StandardLibraryOverloadTests {
  @Test func plainValuesUseTheStandardLibrary() {
    let (a, b) = (["a", "b"], ["a", "c"])
    #expect((0..<min(a.count, b.count)).first { a[$0] != b[$0] } == 1)
    #expect([1].first { _ in true } == 1)
    #expect("a".hasPrefix("a"))
    #expect("a".hasSuffix("a"))
    #expect("a".contains("a"))
    #expect([1, 2, 3].count == 3)
    #expect([1, 2, 3].contains(1))
    #expect((1...3).contains(1))
  }
}
