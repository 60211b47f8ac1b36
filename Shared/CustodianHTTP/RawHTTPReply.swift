import CustodianJSON
import Foundation

/// What a method behind a raw route returns: the whole HTTP response, for bodies that are not JSON in the
/// API's style (a QR code image, a redirect, an HTML page, a CSV export).
public struct RawHTTPReply: Codable, Sendable {
    public var status: Int
    public var headers: [String: String]
    /// The body, base64-encoded so that binary bodies survive JSON.
    public var body: String

    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body.base64EncodedString()
    }

    public init(status: Int = 200, contentType: String, text: String, headers: [String: String] = [:]) {
        self.init(status: status, headers: headers.merging(["Content-Type": contentType]) { _, new in new }, body: Data(text.utf8))
    }

    init(status: Int, headers: [String: String], base64Body: String) {
        self.status = status
        self.headers = headers
        self.body = base64Body
    }
}

extension RawHTTPReply: JSONValueReadable, JSONValueWritable {
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, case .int(let status) = fields["status"], let code = Int(exactly: status),
            let headers = fields["headers"]?.stringFields, case .string(let body) = fields["body"]
        else { return nil }
        self.init(status: code, headers: headers, base64Body: body)
    }

    public func writeJSON(into output: inout [UInt8]) {
        var object = JSONObjectWriter(into: &output)
        object.string("body", body, into: &output)
        object.key("headers", into: &output)
        JSONObjectWriter.write(headers, into: &output)
        object.key("status", into: &output)
        output.append(contentsOf: String(status).utf8)
        object.end(into: &output)
    }
}
