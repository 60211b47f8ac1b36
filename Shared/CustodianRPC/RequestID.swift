#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// Request ids: random (version 4) UUIDs in lower case. Foundation's `UUID()` opens `/dev/urandom` and formats through
/// `snprintf` on every call, and the system generator makes a `getrandom` system call for every 8 bytes; the gateway
/// makes an id for nearly every request, so the bytes come from a pool that one call fills for 32 ids.
public enum RequestID {
    public static func random() -> String {
        var bytes = pool.withLock { $0.next16() }
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

    private static let pool = Mutex(RandomPool())

    /// Random bytes from the system's generator (`arc4random_buf`), drawn 512 at a time, each handed out once.
    private struct RandomPool: ~Copyable {
        private var bytes: [UInt64] = Array(repeating: 0, count: 64)
        private var next = 64

        mutating func next16() -> (UInt64, UInt64) {
            if next + 2 > bytes.count {
                bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                next = 0
            }
            defer { next += 2 }
            return (bytes[next], bytes[next + 1])
        }
    }
}
