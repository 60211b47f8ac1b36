import CustodianJSON
import NIOCore

/// A request body the gateway checked is JSON (``JSONValue/validate(_:maximumDepth:)``) and forwards as it came: its
/// bytes go into the RPC frame unchanged, and the service reads them with the same reader that checked them. Building a
/// tree only to write it out again cost the gateway most of its time on large bodies (a vault batch of 1000 records).
public struct CheckedJSON: Sendable {
    public let bytes: ByteBuffer
    /// A string or key in it holds U+0000, which no API accepts.
    public let containsNUL: Bool

    /// Throws what ``JSONValue/parse(_:maximumDepth:)-(UnsafeRawBufferPointer,_)`` would throw for the same bytes.
    public init(_ bytes: ByteBuffer, maximumDepth: Int) throws(JSONValue.ParseError) {
        let result = bytes.withUnsafeReadableBytes { raw in
            Result { () throws(JSONValue.ParseError) in try JSONValue.validate(raw, maximumDepth: maximumDepth) }
        }
        self.bytes = bytes
        self.containsNUL = try result.get().containsNUL
    }

    /// The value the text holds, read when the gateway itself needs a member (the account a login names).
    public var value: JSONValue {
        (try? bytes.withUnsafeReadableBytes { raw in try JSONValue.parse(raw) }) ?? .null
    }
}
