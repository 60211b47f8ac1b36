import CustodianJSON
import NIOCore

/// Every routed call carries an `HTTPInput`: read from the frame's tree and written into the frame member by member.
extension HTTPInput: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, let body = fields["body"], let path = fields["path"]?.stringFields,
            case .object(let queryFields) = fields["query"]
        else { return nil }
        var query: [String: [String]] = [:]
        query.reserveCapacity(queryFields.count)
        for (name, value) in queryFields {
            guard let texts = value.stringItems else { return nil }
            query[name] = texts
        }
        var headers: [String: String] = [:]
        if let member = fields["headers"] {
            guard let read = member.stringFields else { return nil }
            headers = read
        }
        var cursor: String?
        switch fields["cursor"] {
        case nil, .null?: cursor = nil
        case .string(let text)?: cursor = text
        default: return nil
        }
        self.init(body: body, path: path, query: query, headers: headers, cursor: cursor)
    }

    /// A checked body goes in as the client sent it.
    public func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        object.key("body", into: &output)
        switch bodyForm {
        case .value(let value): value.write(into: &output)
        case .checked(let text): output.append(contentsOf: text.bytes.readableBytesView)
        }
        if let cursor { object.string("cursor", cursor, into: &output) }
        if !headers.isEmpty {
            object.key("headers", into: &output)
            JSONObjectWriter.write(headers, into: &output)
        }
        object.key("path", into: &output)
        JSONObjectWriter.write(path, into: &output)
        object.key("query", into: &output)
        JSONObjectWriter.write(query, into: &output)
        object.end(into: &output)
    }
}
