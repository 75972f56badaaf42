/// Why a ``RelayServer`` did not start serving.
public enum RelayServerError: Error, CustomStringConvertible {
  /// The relay could not listen on `address` (for instance, another process holds the port).
  case cannotListen(address: String, reason: String)
  /// ``RelayServer/run()`` ended (it was cancelled) before the relay listened.
  case stoppedBeforeListening

  public var description: String {
    switch self {
    case .cannotListen(let address, let reason):
      "the relay could not listen on \(address): \(reason). If another process holds the port, stop it or give the relay another port"
    case .stoppedBeforeListening:
      "the relay stopped before it listened"
    }
  }
}
