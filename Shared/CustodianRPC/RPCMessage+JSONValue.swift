import Foundation
import Logging

/// The messages every call carries, read from and written to ``JSONValue`` trees directly: the frame is parsed once
/// (``JSONValue/parse(_:maximumDepth:)``) and each part taken from the tree, instead of a `JSONDecoder` pass per
/// part. Each reader returns nil for anything unusual; the caller then takes the `Codable` path, whose errors name
/// the member that is wrong.
extension RPCID {
    init?(json: JSONValue) {
        switch json {
        case .int(let number): self = .number(number)
        case .string(let text): self = .string(text)
        default: return nil
        }
    }

    var json: JSONValue {
        switch self {
        case .number(let number): .int(number)
        case .string(let text): .string(text)
        }
    }
}

extension CallContext {
    /// nil when absent or not exactly the shape ``CallContext`` decodes; `logger` gets the request id as metadata.
    init?(json: JSONValue?, logger: Logger) {
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
        self.init(requestID: requestID, principal: principal, credential: credential, logger: logger)
        self.deadline = milliseconds
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = ["requestId": .string(requestID)]
        if let deadline { fields["deadline"] = .int(deadline) }
        if let principal { fields["principal"] = principal.json }
        if let credential { fields["credential"] = credential.json }
        return .object(fields)
    }

    /// The text of `json`, written without building it: every call's frame carries one.
    func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        if let credential {
            object.key("credential", into: &output)
            credential.json.write(into: &output)
        }
        if let deadline {
            object.key("deadline", into: &output)
            output.append(contentsOf: String(deadline).utf8)
        }
        if let principal {
            object.key("principal", into: &output)
            principal.json.write(into: &output)
        }
        object.string("requestId", requestID, into: &output)
        object.end(into: &output)
    }
}

extension Principal {
    init?(json: JSONValue) {
        guard case .object(let fields) = json, case .string(let kind) = fields["kind"], case .string(let id) = fields["id"] else { return nil }
        var session: String?
        switch fields["session"] {
        case nil, .null?: session = nil
        case .string(let text)?: session = text
        default: return nil
        }
        guard case .array(let items) = fields["scopes"] else { return nil }
        var scopes: [String] = []
        for item in items {
            guard case .string(let scope) = item else { return nil }
            scopes.append(scope)
        }
        self.init(kind: PrincipalKind(rawValue: kind), id: id, session: session, scopes: scopes)
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = ["kind": .string(kind.rawValue), "id": .string(id), "scopes": .array(scopes.map { .string($0) })]
        if let session { fields["session"] = .string(session) }
        return .object(fields)
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

    var json: JSONValue {
        var fields: [String: JSONValue] = ["token": .string(token)]
        if let expectedKind { fields["expectedKind"] = .string(expectedKind.rawValue) }
        return .object(fields)
    }
}

extension HTTPInput {
    /// nil when a member is missing or of another shape.
    init?(json: JSONValue?) {
        guard case .object(let fields) = json, let body = fields["body"] else { return nil }
        guard case .object(let pathFields) = fields["path"] else { return nil }
        var path: [String: String] = [:]
        for (name, value) in pathFields {
            guard case .string(let text) = value else { return nil }
            path[name] = text
        }
        guard case .object(let queryFields) = fields["query"] else { return nil }
        var query: [String: [String]] = [:]
        for (name, value) in queryFields {
            guard case .array(let items) = value else { return nil }
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item else { return nil }
                texts.append(text)
            }
            query[name] = texts
        }
        var headers: [String: String] = [:]
        switch fields["headers"] {
        case nil: break
        case .object(let headerFields)?:
            for (name, value) in headerFields {
                guard case .string(let text) = value else { return nil }
                headers[name] = text
            }
        default: return nil
        }
        var cursor: String?
        switch fields["cursor"] {
        case nil, .null?: cursor = nil
        case .string(let text)?: cursor = text
        default: return nil
        }
        self.init(body: body, path: path, query: query, headers: headers, cursor: cursor)
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "body": body,
            "path": .object(path.mapValues { .string($0) }),
            "query": .object(query.mapValues { .array($0.map { .string($0) }) }),
        ]
        if !headers.isEmpty { fields["headers"] = .object(headers.mapValues { .string($0) }) }
        if let cursor { fields["cursor"] = .string(cursor) }
        return .object(fields)
    }
}

extension RPCErrorObject {
    init?(json: JSONValue?) {
        guard case .object(let fields) = json, case .int(let code) = fields["code"], case .string(let message) = fields["message"] else { return nil }
        var data: RPCErrorData?
        if case .object(let dataFields)? = fields["data"] {
            guard case .string(let reason) = dataFields["reason"] else { return nil }
            var retryAfter: Int?
            switch dataFields["retryAfter"] {
            case nil, .null?: retryAfter = nil
            case .int(let seconds)?: retryAfter = Int(exactly: seconds)
            default: return nil
            }
            let details = dataFields["details"].flatMap { $0.isNull ? nil : $0 }
            data = RPCErrorData(reason: reason, details: details, retryAfter: retryAfter)
        }
        self.init(code: Int(truncatingIfNeeded: code), message: message, data: data)
    }

    /// The text of `json`, written without building it: every refusal's frame carries one.
    func writeJSON(into output: inout [UInt8]) {
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

    /// The members `JSONEncoder` writes for it (absent optionals left out).
    var json: JSONValue {
        var fields: [String: JSONValue] = ["code": .int(Int64(code)), "message": .string(message)]
        if let data {
            var dataFields: [String: JSONValue] = ["reason": .string(data.reason)]
            if let details = data.details { dataFields["details"] = details }
            if let retryAfter = data.retryAfter { dataFields["retryAfter"] = .int(Int64(retryAfter)) }
            fields["data"] = .object(dataFields)
        }
        return .object(fields)
    }
}

/// Inputs and results whose frames are written from a ``JSONValue`` tree instead of through `JSONEncoder`.
protocol JSONValueConvertible {
    var json: JSONValue { get }
    /// The JSON text of `json`, byte for byte; a type that can write it without building the tree does.
    func writeJSON(into output: inout [UInt8])
}

extension JSONValueConvertible {
    func writeJSON(into output: inout [UInt8]) {
        json.write(into: &output)
    }
}

/// Writes a JSON object member by member, its keys given in sorted order (as ``JSONValue/write(into:escapingSlashes:)``
/// writes them), without building the object first.
struct JSONObjectWriter {
    private var first = true

    init(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
    }

    /// Writes the key; the caller writes the member's value next.
    mutating func key(_ key: StaticString, into output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ key: StaticString, _ value: String, into output: inout [UInt8]) {
        self.key(key, into: &output)
        JSONValue.write(value, into: &output)
    }

    func end(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "}"))
    }

    /// A JSON object of strings, keys sorted.
    static func write(_ fields: [String: String], into output: inout [UInt8]) {
        write(fields, into: &output) { value, output in JSONValue.write(value, into: &output) }
    }

    /// A JSON object of arrays of strings, keys sorted.
    static func write(_ fields: [String: [String]], into output: inout [UInt8]) {
        write(fields, into: &output) { values, output in
            output.append(UInt8(ascii: "["))
            for (position, value) in values.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.write(value, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
    }

    private static func write<Value>(_ fields: [String: Value], into output: inout [UInt8],
                                     value writeValue: (Value, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "{"))
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.write(key, into: &output)
            output.append(UInt8(ascii: ":"))
            writeValue(fields[key]!, &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}

/// Results read straight from the response's tree instead of through `JSONDecoder`.
protocol JSONValueReadable {
    init?(json: JSONValue)
}

extension RawHTTPReply: JSONValueConvertible, JSONValueReadable {
    var json: JSONValue {
        .object(["status": .int(Int64(status)), "headers": .object(headers.mapValues { .string($0) }), "body": .string(body)])
    }

    init?(json: JSONValue) {
        guard case .object(let fields) = json, case .int(let status) = fields["status"], let code = Int(exactly: status),
            case .object(let headerFields) = fields["headers"], case .string(let body) = fields["body"]
        else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in headerFields {
            guard case .string(let text) = value else { return nil }
            headers[name] = text
        }
        self.init(status: code, headers: headers, base64Body: body)
    }
}

extension StreamPage: JSONValueConvertible, JSONValueReadable {
    var json: JSONValue {
        var fields: [String: JSONValue] = ["chunk": .string(chunk)]
        if let headers { fields["headers"] = .object(headers.mapValues { .string($0) }) }
        if let next { fields["next"] = .string(next) }
        return .object(fields)
    }

    init?(json: JSONValue) {
        guard case .object(let fields) = json, case .string(let chunk) = fields["chunk"] else { return nil }
        var headers: [String: String]?
        switch fields["headers"] {
        case nil, .null?: headers = nil
        case .object(let headerFields)?:
            var read: [String: String] = [:]
            for (name, value) in headerFields {
                guard case .string(let text) = value else { return nil }
                read[name] = text
            }
            headers = read
        default: return nil
        }
        var next: String?
        switch fields["next"] {
        case nil, .null?: next = nil
        case .string(let text)?: next = text
        default: return nil
        }
        self.init(headers: headers, chunk: chunk, next: next)
    }
}

extension HTTPInput: JSONValueConvertible {
    /// A checked body goes in as the client sent it.
    func writeJSON(into output: inout [UInt8]) {
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
extension Empty: JSONValueConvertible {
    var json: JSONValue { .object([:]) }
}

