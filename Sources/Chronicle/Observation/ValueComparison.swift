/// Whether `old` and `new` are known to be equal: true only when the
/// value's type is `Equatable` (arrays of `Equatable` rows included) and
/// they compare equal. Observation uses it to skip notifying a fetch that
/// returned what the observers already have.
func isKnownEqual<Value>(_ old: Value, _ new: Value) -> Bool {
  guard let old = old as? any Equatable else { return false }
  return old.isEqual(toAny: new)
}

extension Equatable {
  fileprivate func isEqual(toAny other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}
