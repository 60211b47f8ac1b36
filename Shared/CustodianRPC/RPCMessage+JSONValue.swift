import CustodianJSON
import Logging

/// The members every call carries, read from the frame's tree and written into frames member by member (keys sorted,
/// as ``JSONValueEncoder`` writes their `Codable` forms). Each reader takes exactly what its type's `init(from:)` takes.
extension RPCID {
    init?(json: JSONValue) {
        switch json {
        case .int(let number): self = .number(number)
        case .string(let text): self = .string(text)
        default: return nil
        }
    }

    func write(into output: inout [UInt8]) {
        switch self {
        case .number(let number): output.append(contentsOf: String(number).utf8)
        case .string(let text): JSONValue.write(text, into: &output)
        }
    }
}

extension CallContext {
    /// nil when not exactly the shape ``CallContext`` decodes; `logger` gets the request id as metadata.
    init?(json: JSONValue, logger: Logger) {
        guard case .object(let fields) = json, case .string(let requestID) = fields["requestId"] else { return nil }
        var milliseconds: Int64?
        switch fields["deadline"] {
        case nil, .null?: milliseconds = nil
        case .int(let value)?: milliseconds = value
        default: return nil
        }
        var principal: Principal?
        switch fields["principal"] {
        case nil, .null?: principal = nil
        case let value?:
            guard let decoded = Principal(json: value) else { return nil }
            principal = decoded
        }
        var credential: Credential?
        switch fields["credential"] {
        case nil, .null?: credential = nil
        case let value?:
            guard let decoded = Credential(json: value) else { return nil }
            credential = decoded
        }
        var synthetic: Bool?
        switch fields["synthetic"] {
        case nil, .null?: synthetic = nil
        case .bool(let value)?: synthetic = value
        default: return nil
        }
        var traceparent: String?
        switch fields["traceparent"] {
        case nil, .null?: traceparent = nil
        case .string(let value)?: traceparent = value
        default: return nil
        }
        self.init(requestID: requestID, principal: principal, credential: credential, logger: logger)
        self.deadline = milliseconds
        self.synthetic = synthetic
        self.traceparent = traceparent
    }

    /// Every call's frame carries one.
    func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        if let credential {
            object.key("credential", into: &output)
            credential.writeJSON(into: &output)
        }
        if let deadline {
            object.key("deadline", into: &output)
            output.append(contentsOf: String(deadline).utf8)
        }
        if let principal {
            object.key("principal", into: &output)
            principal.writeJSON(into: &output)
        }
        object.string("requestId", requestID, into: &output)
        // Only when set, so that a frame without it is byte for byte what it always was.
        if let synthetic {
            object.key("synthetic", into: &output)
            output.append(contentsOf: (synthetic ? "true" : "false").utf8)
        }
        if let traceparent { object.string("traceparent", traceparent, into: &output) }
        object.end(into: &output)
    }
}

/// A principal travels in every authenticated call's context, and is the result of the methods that establish one.
extension Principal: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, case .string(let kind) = fields["kind"], case .string(let id) = fields["id"] else { return nil }
        var session: String?
        switch fields["session"] {
        case nil, .null?: session = nil
        case .string(let text)?: session = text
        default: return nil
        }
        guard let scopes = fields["scopes"]?.stringItems else { return nil }
        var name: String?
        switch fields["name"] {
        case nil, .null?: name = nil
        case .string(let text)?: name = text
        default: return nil
        }
        self.init(kind: PrincipalKind(rawValue: kind), id: id, session: session, scopes: scopes, name: name)
    }

    public func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        object.string("id", id, into: &output)
        object.string("kind", kind.rawValue, into: &output)
        if let name { object.string("name", name, into: &output) }
        object.key("scopes", into: &output)
        output.append(UInt8(ascii: "["))
        for (index, scope) in scopes.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.write(scope, into: &output)
        }
        output.append(UInt8(ascii: "]"))
        if let session { object.string("session", session, into: &output) }
        object.end(into: &output)
    }
}

extension Credential {
    init?(json: JSONValue) {
        guard case .object(let fields) = json, case .string(let token) = fields["token"] else { return nil }
        switch fields["expectedKind"] {
        case nil, .null?: self.init(token: token)
        case .string(let kind)?: self.init(token: token, expectedKind: PrincipalKind(rawValue: kind))
        default: return nil
        }
    }

    func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        if let expectedKind { object.string("expectedKind", expectedKind.rawValue, into: &output) }
        object.string("token", token, into: &output)
        object.end(into: &output)
    }
}

/// An error is as common an answer as a result (every 4xx).
extension RPCErrorObject: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, case .int(let code) = fields["code"], case .string(let message) = fields["message"] else { return nil }
        var data: RPCErrorData?
        switch fields["data"] {
        case nil, .null?: data = nil
        case .object(let dataFields)?:
            guard case .string(let reason) = dataFields["reason"] else { return nil }
            var retryAfter: Int?
            switch dataFields["retryAfter"] {
            case nil, .null?: retryAfter = nil
            case .int(let seconds)?: retryAfter = Int(exactly: seconds)
            default: return nil
            }
            let details = dataFields["details"].flatMap { $0.isNull ? nil : $0 }
            data = RPCErrorData(reason: reason, details: details, retryAfter: retryAfter)
        default: return nil
        }
        self.init(code: Int(truncatingIfNeeded: code), message: message, data: data)
    }

    public func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        object.key("code", into: &output)
        output.append(contentsOf: String(code).utf8)
        if let data {
            object.key("data", into: &output)
            var dataObject = JSONObjectWriter(into: &output)
            if let details = data.details {
                dataObject.key("details", into: &output)
                details.write(into: &output)
            }
            dataObject.string("reason", data.reason, into: &output)
            if let retryAfter = data.retryAfter {
                dataObject.key("retryAfter", into: &output)
                output.append(contentsOf: String(retryAfter).utf8)
            }
            dataObject.end(into: &output)
        }
        object.string("message", message, into: &output)
        object.end(into: &output)
    }
}

/// The input of every method that takes none, and the result of many. Its `init(from:)` reads nothing, so it takes
/// any value.
extension Empty: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        self.init()
    }

    public func writeJSON(into output: inout [UInt8]) {
        output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
    }
}

extension RPCID? {
    /// `null` for a request whose id could not be read.
    func write(into output: inout [UInt8]) {
        if let self { self.write(into: &output) } else { output.append(contentsOf: "null".utf8) }
    }
}
