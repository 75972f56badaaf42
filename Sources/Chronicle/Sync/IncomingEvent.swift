/// A remote event with its serialized form, as read from a bundle.
struct IncomingEvent: Sendable {
  var event: ChangeEvent
  var encoded: EventCodec.Encoded

  /// Each of `serialized` decoded (envelope, CRC-32, decompressed body), on
  /// all cores, in order: the event, or what is wrong with its bytes.
  static func decodeAll(_ serialized: [[UInt8]]) -> [Result<IncomingEvent, EventFormatError>] {
    serialized.concurrentMap { bytes in
      Result { () throws(EventFormatError) in
        let (event, encoded) = try EventCodec.decodeEncoded(bytes)
        return IncomingEvent(event: event, encoded: encoded)
      }
    }
  }
}
