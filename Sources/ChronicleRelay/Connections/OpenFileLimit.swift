#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's limit on open files (its soft `RLIMIT_NOFILE`): each
/// connection takes one.
enum OpenFileLimit {
  static var current: Int? {
    var limit = rlimit()
    #if canImport(Glibc)
      guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    #else
      guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
    #endif
    // RLIM_INFINITY is all ones (it does not import as a constant on Linux).
    return limit.rlim_cur == ~0 ? nil : Int(clamping: limit.rlim_cur)
  }

  /// The connections a relay keeps open at most when its configuration
  /// names no number: the file limit less 64 for the store, logs and
  /// listening socket, and never under 64.
  static var connectionsByDefault: Int {
    guard let files = current else { return 16_384 }
    return max(64, files - 64)
  }
}
