import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Loopback ports for servers a test stops and starts again on the same
/// port (a relay, PostgreSQL). Each is free when handed out, below Linux's
/// ephemeral range (32768–60999), and never handed out twice in one test
/// process: while its server is down, neither the kernel (for a connection's
/// local port or a port-0 listener) nor another test's server can take it.
/// Both once did: a restarted relay found PostgreSQL listening on its port.
public enum ReservedPort {
  private static let handedOut = Mutex<Set<Int>>([])

  /// A port no other caller in this process got.
  public static func next() throws -> Int {
    for _ in 0..<500 {
      let port = Int.random(in: 20_000..<32_000)
      let isNew = handedOut.withLock { $0.insert(port).inserted }
      if isNew, isFree(port) { return port }
    }
    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "no free loopback port between 20000 and 32000"])
  }

  /// Whether a listener could bind 127.0.0.1:`port` now.
  private static func isFree(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
  }
}
