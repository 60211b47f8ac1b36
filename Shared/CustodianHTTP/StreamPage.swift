import CustodianJSON

/// One page of a streamed response (an export): the gateway writes `chunk` to the client and asks for the
/// page after `next` until there is none, so that neither it nor the service holds the whole export.
public struct StreamPage: Codable, Sendable {
    /// Sent with the first page only: the response's headers (Content-Type, Content-Disposition).
    public var headers: [String: String]?
    public var chunk: String
    public var next: String?

    public init(headers: [String: String]? = nil, chunk: String, next: String?) {
        self.headers = headers
        self.chunk = chunk
        self.next = next
    }
}

extension StreamPage: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, case .string(let chunk) = fields["chunk"] else { return nil }
        var headers: [String: String]?
        switch fields["headers"] {
        case nil, .null?: headers = nil
        case let member?:
            guard let read = member.stringFields else { return nil }
            headers = read
        }
        var next: String?
        switch fields["next"] {
        case nil, .null?: next = nil
        case .string(let text)?: next = text
        default: return nil
        }
        self.init(headers: headers, chunk: chunk, next: next)
    }

    public func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        object.string("chunk", chunk, into: &output)
        if let headers {
            object.key("headers", into: &output)
            JSONObjectWriter.write(headers, into: &output)
        }
        if let next { object.string("next", next, into: &output) }
        object.end(into: &output)
    }
}
