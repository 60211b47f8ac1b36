/// Request ids: random (version 4) UUIDs in lower case. Foundation's `UUID()` opens `/dev/urandom` and formats through
/// `snprintf` on every call, a visible share of the gateway's time per request; this draws from the system generator.
public enum RequestID {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = raw[6] & 0x0F | 0x40  // version 4
            raw[8] = raw[8] & 0x3F | 0x80  // RFC 9562 variant
            let digits: StaticString = "0123456789abcdef"
            return String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = digits.utf8Start[Int(byte >> 4)]
                    text[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}
