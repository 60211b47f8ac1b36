import Foundation
import Hummingbird
import NIOCore

/// The fields of a posted form: `application/x-www-form-urlencoded`, or `multipart/form-data` for a file upload
/// (a file field's value is the file's text). Anything else, or a body that is not valid, is a 400 page.
enum ConsoleForm {
    static func read(_ request: Request, limit: Int) async throws -> [String: [String]] {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw ConsoleFailure(status: .contentTooLarge, message: "The form is larger than \(limit / 1024) KiB.")
        }
        let data = Data(body.readableBytesView)
        let contentType = request.headers[.contentType] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = boundary(of: contentType), let fields = multipart(data, boundary: boundary) else {
                throw ConsoleFailure(status: .badRequest, message: "The form could not be read (malformed multipart body).")
            }
            return fields
        }
        guard data.isEmpty || contentType.lowercased().hasPrefix("application/x-www-form-urlencoded"),
            let fields = URLEncodedForm.fields(data)
        else {
            throw ConsoleFailure(status: .badRequest, message: "The form could not be read (not URL-encoded form data).")
        }
        return fields
    }

    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return (1...70).contains(value.utf8.count) ? value : nil
            }
        }
        return nil
    }

    /// RFC 7578: parts between `--boundary` lines, each with headers, a blank line and its content. Every part's
    /// content must be UTF-8 (the console takes text files only).
    static func multipart(_ data: Data, boundary: String) -> [String: [String]]? {
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n\r\n".utf8)
        var fields: [String: [String]] = [:]
        guard var cursor = data.range(of: delimiter)?.upperBound else { return nil }
        while true {
            // After a delimiter: `--` ends the body, CRLF starts a part.
            let rest = data[cursor...]
            if rest.starts(with: Data("--".utf8)) { return fields }
            guard rest.starts(with: Data("\r\n".utf8)) else { return nil }
            let partStart = cursor + 2
            guard let next = data.range(of: Data("\r\n".utf8) + delimiter, in: partStart..<data.endIndex) else { return nil }
            let part = data[partStart..<next.lowerBound]
            guard let headerEnd = part.range(of: separator),
                let headers = String(validating: part[part.startIndex..<headerEnd.lowerBound], as: UTF8.self),
                let field = fieldName(headers),
                let value = String(validating: part[headerEnd.upperBound...], as: UTF8.self)
            else { return nil }
            fields[field.name, default: []].append(value)
            if let fileName = field.fileName { fields[field.name + fileNameSuffix, default: []].append(fileName) }
            cursor = next.upperBound
        }
    }

    /// A file field's name as the browser sent it is the field `<name>:filename` (to name the file in a refusal).
    static let fileNameSuffix = ":filename"

    /// The `name` (and a file's `filename`) of a part's `Content-Disposition: form-data; name="…"; filename="…"` header.
    private static func fieldName(_ headers: String) -> (name: String, fileName: String?)? {
        for line in headers.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            var name: String?
            var fileName: String?
            for parameter in line.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch pair[0].lowercased() {
                case "name": name = value
                case "filename": fileName = value
                default: break
                }
            }
            return name.map { (name: $0, fileName: fileName) }
        }
        return nil
    }
}
