import Foundation
import GRDBSQLite

/// The text and blob bytes of the values one run of a statement binds,
/// copied one after the other into one buffer and bound where they lie.
///
/// Bound as `SQLITE_TRANSIENT`, each such value is copied by SQLite into an
/// allocation of its own (under its memory mutex) and freed after; a
/// merge binds several per row. Here they cost one copy into a buffer that
/// is reused from one run to the next.
struct StableValueBytes {
  private var bytes: [UInt8] = []
  /// Where each text or blob value collected lies in `bytes`, in order.
  private var spans: [Range<Int>] = []

  /// Forgets the values collected, keeping the memory for the next ones.
  mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
    spans.removeAll(keepingCapacity: true)
  }

  /// Collects the bytes of `value`, if it is text or a blob; bind values in
  /// the order they were collected.
  mutating func collect(_ value: SQLiteValue) {
    switch value {
    case .text(let text):
      let start = bytes.count
      bytes.append(contentsOf: text.utf8)
      spans.append(start..<bytes.count)
    case .blob(let blob):
      let start = bytes.count
      bytes.append(contentsOf: blob)
      spans.append(start..<bytes.count)
    case .null, .integer, .real:
      break
    }
  }

  /// Calls `body` with a binder of the values collected, valid inside it
  /// only: the statement must run (and be reset) before `body` returns.
  func withBinder<T>(_ body: (inout Binder) throws -> T) rethrows -> T {
    try bytes.withUnsafeBytes { buffer in
      var binder = Binder(base: buffer.baseAddress, spans: spans)
      return try body(&binder)
    }
  }

  /// Binds the values collected, in order, where their bytes lie.
  struct Binder {
    fileprivate let base: UnsafeRawPointer?
    fileprivate let spans: [Range<Int>]
    private var next = 0

    fileprivate init(base: UnsafeRawPointer?, spans: [Range<Int>]) {
      self.base = base
      self.spans = spans
    }

    /// Binds `value`, the next value collected, to the next parameter.
    mutating func bind(_ value: SQLiteValue, to binding: inout StatementBinding) throws {
      switch value {
      case .text:
        try binding.bindText(bytes(of: nextSpan()))
      case .blob:
        try binding.bindBlob(bytes(of: nextSpan()), copied: false)
      case .null, .integer, .real:
        try binding.bind(value)
      }
    }

    private mutating func nextSpan() -> Range<Int> {
      defer { next += 1 }
      return spans[next]
    }

    private func bytes(of span: Range<Int>) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(start: base.map { $0 + span.lowerBound }, count: span.count)
    }
  }
}
