import Testing
@testable import CustodianQR
@testable import LinksService

@Suite("CRC-32, Adler-32 and the stored zlib stream")
struct ChecksumTests {
    @Test func crc32OfTheCheckString() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func crc32OfThePNGEndChunkType() {
        // Every PNG ends in these four bytes: the CRC of "IEND" and no data.
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func crc32IsTheSameInPieces() {
        var crc = CRC32()
        crc.update(Array("12345".utf8))
        crc.update(Array("6789".utf8))
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func adler32OfWikipedia() {
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Adler32.checksum([UInt8]()) == 1)
    }

    @Test func adler32StaysExactPastTheReductionInterval() {
        // 100 000 bytes of 0xFF: the sums must be reduced along the way, not overflow.
        let bytes = [UInt8](repeating: 0xFF, count: 100_000)
        var a: UInt64 = 1
        var b: UInt64 = 0
        for byte in bytes {
            a = (a + UInt64(byte)) % 65_521
            b = (b + a) % 65_521
        }
        #expect(Adler32.checksum(bytes) == UInt32(b << 16 | a))
    }

    @Test func storedBlocksSplitAt65535BytesAndEndWithTheAdler32() {
        let data = (0..<(65_535 * 2 + 10)).map { UInt8($0 % 251) }
        let stream = ZlibStoredStream.wrap(data)
        #expect(Array(stream.prefix(2)) == [0x78, 0x01])
        #expect((UInt16(stream[0]) << 8 | UInt16(stream[1])) % 31 == 0)
        // Three blocks: 65535, 65535 and 10 bytes, only the last one final.
        var offset = 2
        var unpacked: [UInt8] = []
        var finals: [Bool] = []
        while finals.last != true {
            finals.append(stream[offset] & 1 == 1)
            #expect(stream[offset] >> 1 & 0b11 == 0, "BTYPE must be 00 (stored)")
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            #expect(length ^ complement == 0xFFFF)
            unpacked += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
        }
        #expect(finals == [false, false, true])
        #expect(unpacked == data)
        let adler = stream[offset...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(stream.count == offset + 4)
        #expect(adler == Adler32.checksum(data))
    }

    @Test func anEmptyStreamIsOneEmptyFinalBlock() {
        #expect(ZlibStoredStream.wrap([]) == [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01])
    }
}
