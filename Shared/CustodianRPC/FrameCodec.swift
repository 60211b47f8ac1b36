import NIOCore
import NIOExtras

/// RPC frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
public enum RPCFraming {
    public static let defaultMaximumFrameSize = 8 * 1024 * 1024

    /// Adds the frame decoder and encoder to a new channel's pipeline.
    public static func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations, maximumFrameSize: Int) throws {
        try pipeline.addHandler(
            ByteToMessageHandler(
                RPCFrameDecoder(maximumFrameSize: maximumFrameSize),
                // The decoder refuses an oversize length field at once; this bounds what a peer can make us buffer
                // while a frame is still arriving.
                maximumBufferSize: maximumFrameSize + 4
            )
        )
        try pipeline.addHandler(LengthFieldPrepender(lengthFieldBitLength: .fourBytes, lengthFieldEndianness: .big))
    }
}

public struct RPCFrameTooLargeError: Error, CustomStringConvertible {
    public var length: Int
    public var maximum: Int
    public var description: String { "RPC frame of \(length) bytes exceeds the maximum of \(maximum) bytes" }
}

/// Splits the byte stream into frames. NIOExtras' `LengthFieldBasedFrameDecoder` would only notice an oversize
/// frame once its bytes had arrived; this one refuses it as soon as the length field does.
struct RPCFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maximumFrameSize: Int

    init(maximumFrameSize: Int) {
        self.maximumFrameSize = maximumFrameSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes >= 4, let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard Int(length) <= maximumFrameSize else {
            throw RPCFrameTooLargeError(length: Int(length), maximum: maximumFrameSize)
        }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        let frame = buffer.readSlice(length: Int(length))!
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
