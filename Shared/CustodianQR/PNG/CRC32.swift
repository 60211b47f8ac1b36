import Foundation

/// CRC-32 as PNG chunks (and zip, gzip, Ethernet) use it: polynomial 0xEDB88320 (reflected), initial value
/// and final XOR 0xFFFFFFFF. CRC-32("123456789") = 0xCBF43926.
struct CRC32: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// The checksum of everything given to ``update(_:)`` so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { buffer in
            var crc = state
            for byte in buffer {
                crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
            state = crc
        }
    }

    static func checksum(_ bytes: some ContiguousBytes) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// One entry per byte value: the register after shifting that byte through, eight bits at a time.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}
