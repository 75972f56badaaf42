import Foundation
import Testing

@testable import Chronicle

/// The chain rule alone (``RevokedHistory/verdicts(checkpoints:events:logged:)``),
/// on events built by hand: which of a revoked device's events lead to the
/// checkpoints its revocation names, which are disproved, which wait.
@Suite("Devices: the chain that proves a revoked device's events")
struct RevokedHistoryVerdictTests {
  /// An event's bytes as the chain reads them: a header of `fill` bytes, and
  /// for a signed version the key, the link (version 3) and a signature
  /// (not checked here), then a checksum.
  static func event(version: UInt8 = 3, fill: UInt8, linkedTo previous: [UInt8]? = nil) -> [UInt8] {
    var bytes = Array("CHRE".utf8) + [version] + [UInt8](repeating: fill, count: 40)
    if version >= 2 { bytes += [UInt8](repeating: 0xAB, count: EventSignature.publicKeySize) }
    if version >= 3 { bytes += previous.map(EventSignature.historyDigest(of:)) ?? EventSignature.noLink }
    if version >= 2 { bytes += [UInt8](repeating: 0x5C, count: EventSignature.signatureSize) }
    return bytes + [0, 0, 0, 0]
  }

  /// Three genuine events of a device, each linked to the one before.
  let first: [UInt8]
  let second: [UInt8]
  let third: [UInt8]

  init() {
    first = Self.event(fill: 1)
    second = Self.event(fill: 2, linkedTo: first)
    third = Self.event(fill: 3, linkedTo: second)
  }

  func checkpoint(_ sequence: UInt64, _ bytes: [UInt8]) -> HistoryCheckpoint {
    HistoryCheckpoint(sequence: sequence, digest: EventSignature.historyDigest(of: bytes))
  }

  func verdicts(
    _ checkpoints: [HistoryCheckpoint], _ events: [UInt64: [UInt8]], logged: [UInt64: [UInt8]] = [:]
  ) -> [UInt64: RevokedHistory.Verdict] {
    RevokedHistory.verdicts(checkpoints: checkpoints, events: events) { logged[$0] }
  }

  @Test func aWholeChainToItsCheckpointIsProven() {
    #expect(verdicts([checkpoint(3, third)], [1: first, 2: second, 3: third]) == [1: .proven, 2: .proven, 3: .proven])
  }

  /// Another content under sequence 2, linked to the genuine first event:
  /// the genuine third does not lead to it, and the first, which leads only
  /// to it, is asked for again with it.
  @Test func aRewrittenEventIsDisprovedByTheGenuineOneAboveIt() {
    let forged = Self.event(fill: 9, linkedTo: first)
    #expect(verdicts([checkpoint(3, third)], [1: first, 2: forged, 3: third]) == [1: .belowRewritten, 2: .rewritten, 3: .proven])
    // The event a checkpoint names, forged: everything below it goes with it.
    let forgedThird = Self.event(fill: 9, linkedTo: second)
    #expect(verdicts([checkpoint(3, third)], [1: first, 2: second, 3: forgedThird]) == [1: .belowRewritten, 2: .belowRewritten, 3: .rewritten])
  }

  /// Without the rest of the chain nothing is decided; the log's copy of
  /// the next event (taken before) decides as a received one does.
  @Test func eventsWaitUntilTheChainReachesACheckpoint() {
    #expect(verdicts([checkpoint(3, third)], [1: first, 2: second]) == [1: .waiting, 2: .waiting])
    #expect(verdicts([checkpoint(3, third)], [1: first, 2: second], logged: [3: third]) == [1: .proven, 2: .proven])
    // A checkpoint on the way decides without the events above it.
    #expect(verdicts([checkpoint(2, second), checkpoint(3, third)], [1: first, 2: second]) == [1: .proven, 2: .proven])
  }

  /// An event whose next one was signed before links (format 2) can be
  /// neither proven nor disproved: taken, as before links.
  @Test func anEventBelowOneWithoutALinkIsTakenAsBefore() {
    let olderSecond = Self.event(version: 2, fill: 2)
    let linkedThird = Self.event(fill: 3, linkedTo: olderSecond)
    #expect(verdicts([checkpoint(3, linkedThird)], [1: first, 2: olderSecond, 3: linkedThird]) == [1: .unlinked, 2: .proven, 3: .proven])
  }

  /// Events past the last checkpoint are not the chain's to judge (the
  /// cut-off decides them), and no checkpoint judges nothing.
  @Test func eventsPastTheLastCheckpointAreLeftAlone() {
    #expect(verdicts([checkpoint(2, second)], [2: second, 3: third]) == [2: .proven])
    #expect(verdicts([], [1: first]).isEmpty)
  }

  /// Refusals: a disproved copy is refused open (a good copy is still
  /// taken), a waiting one settled (kept, counted as held).
  @Test func refusalsAreOpenForDisprovedCopiesAndSettledForWaitingOnes() throws {
    let origin = PeerID(bytes: [UInt8](repeating: 7, count: 16))!
    #expect(RevokedHistory.refusal(.proven, origin: origin) == nil)
    #expect(RevokedHistory.refusal(.unlinked, origin: origin) == nil)
    #expect(try #require(RevokedHistory.refusal(.rewritten, origin: origin)).settled == false)
    #expect(try #require(RevokedHistory.refusal(.belowRewritten, origin: origin)).settled == false)
    #expect(try #require(RevokedHistory.refusal(.waiting, origin: origin)).settled == true)
  }
}
