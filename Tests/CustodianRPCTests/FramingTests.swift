import NIOCore
import NIOEmbedded
import Testing
@testable import CustodianRPC

@Suite("Length-prefixed frames")
struct FramingTests {
    private func channel(maximumFrameSize: Int = 1024) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try RPCFraming.addHandlers(to: channel.pipeline.syncOperations, maximumFrameSize: maximumFrameSize)
        return channel
    }

    private func frame(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(text.utf8.count), endianness: .big)
        buffer.writeString(text)
        return buffer
    }

    @Test func frameSplitAcrossReadsIsReassembled() throws {
        let channel = try channel()
        var whole = frame(#"{"jsonrpc":"2.0","id":1,"method":"a"}"#)
        let head = whole.readSlice(length: 3)!  // splits the length field itself
        let middle = whole.readSlice(length: 10)!
        try channel.writeInbound(head)
        try channel.writeInbound(middle)
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        try channel.writeInbound(whole)
        let decoded = try #require(try channel.readInbound(as: ByteBuffer.self))
        #expect(String(buffer: decoded) == #"{"jsonrpc":"2.0","id":1,"method":"a"}"#)
    }

    @Test func manyFramesInOneReadAreAllDelivered() throws {
        let channel = try channel()
        var buffer = ByteBuffer()
        for index in 1...5 {
            var one = frame(#"{"id":\#(index)}"#)
            buffer.writeBuffer(&one)
        }
        try channel.writeInbound(buffer)
        var texts: [String] = []
        while let decoded = try channel.readInbound(as: ByteBuffer.self) { texts.append(String(buffer: decoded)) }
        #expect(texts == (1...5).map { #"{"id":\#($0)}"# })
    }

    @Test func oversizeFrameIsRefusedAsSoonAsItsLengthArrives() throws {
        let channel = try channel(maximumFrameSize: 64)
        var header = ByteBuffer()
        header.writeInteger(UInt32(65), endianness: .big)
        #expect(throws: RPCFrameTooLargeError.self) { try channel.writeInbound(header) }
    }

    @Test func frameAtTheLimitPasses() throws {
        let channel = try channel(maximumFrameSize: 64)
        try channel.writeInbound(frame(String(repeating: "x", count: 64)))
        #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 64)
    }

    @Test func outboundFramesGetTheirLengthPrefix() throws {
        let channel = try channel()
        try channel.writeOutbound(ByteBuffer(string: "{}"))
        var written = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&part) }
        #expect(written.readInteger(endianness: .big, as: UInt32.self) == 2)
        #expect(String(buffer: written) == "{}")
    }
}
