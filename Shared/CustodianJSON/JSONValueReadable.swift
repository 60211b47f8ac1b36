/// A type that reads itself straight from a parsed tree, without `Decodable`'s containers: the few shapes every call
/// carries (an HTTP request, a principal, an empty input), read once per call. ``JSONValueDecoder`` asks it first.
///
/// It takes exactly what its `init(from:)` takes and reads it alike; for anything else it returns nil, and the
/// decoder runs `init(from:)` on the same tree, whose error names the member that is wrong.
public protocol JSONValueReadable: Decodable {
    init?(json: JSONValue)
}

/// A type that writes its own JSON text without building a tree: byte for byte what ``JSONValueEncoder`` writes for it
/// through `Encodable`. ``JSONValueEncoder/write(_:into:)`` asks it first.
public protocol JSONValueWritable: Encodable {
    func writeJSON(into output: inout [UInt8])
}
