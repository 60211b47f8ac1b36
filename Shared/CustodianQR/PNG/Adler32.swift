import Foundation

/// Adler-32, the checksum that ends a zlib stream (RFC 1950): two sums modulo 65521, the second over the
/// running values of the first. Adler-32("Wikipedia") = 0x11E60398.
struct Adler32: Sendable {
    private static let modulus: UInt32 = 65_521
    /// The most bytes that can be summed before the 32-bit sums could overflow (zlib's NMAX).
    private static let bytesBetweenReductions = 5_552

    private var a: UInt32 = 1
    private var b: UInt32 = 0

    init() {}

    var value: UInt32 { b << 16 | a }

    mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { buffer in
            var a = self.a
            var b = self.b
            var start = 0
            while start < buffer.count {
                let end = min(start + Self.bytesBetweenReductions, buffer.count)
                for index in start..<end {
                    a &+= UInt32(buffer[index])
                    b &+= a
                }
                a %= Self.modulus
                b %= Self.modulus
                start = end
            }
            self.a = a
            self.b = b
        }
    }

    static func checksum(_ bytes: some ContiguousBytes) -> UInt32 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }
}
