import CustodianJSON
import CustodianRPC
import Foundation

/// `/docs`: the OpenAPI document as a readable page — operations by tag, each with its security, parameters, request
/// bodies, responses and examples, and the shared schemas and error shapes at the end. Made once from the document.
struct APIReferencePage {
    let document: JSONValue

    static let methods = ["get", "put", "post", "patch", "delete"]

    var page: HTMLPage {
        let title = document["info"]?["title"]?.stringValue ?? "API"
        var html = "<h1>\(HTMLPage.escape(title)) API reference</h1>\n"
        if let summary = document["info"]?["summary"]?.stringValue { html += "<p><strong>\(HTMLPage.escape(summary))</strong></p>\n" }
        if let description = document["info"]?["description"]?.stringValue { html += HTMLPage.prose(description) + "\n" }
        html +=
            ##"<p class="muted">The machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI \##(HTMLPage.escape(document["openapi"]?.stringValue ?? ""))).</p>"##
            + "\n"
        // Researchers who would rather click than call: the same admin methods as pages.
        html +=
            ##"<p>Researchers and operators: <a href="/console">the console</a> does what the admin API does, as pages, with an admin token.</p>"##
            + "\n"

        let operations = self.operations
        let tags = (document["tags"]?.arrayValue ?? []).compactMap { tag in
            tag["name"]?.stringValue.map { ($0, tag["description"]?.stringValue ?? "") }
        }
        html += "<nav><h2>Contents</h2><ul>\n"
        for (tag, description) in tags where operations.contains(where: { $0.tag == tag }) {
            html +=
                ##"<li><a href="#tag-\##(Self.anchor(tag))">\##(HTMLPage.escape(tag))</a> <span class="muted">\##(HTMLPage.escape(description))</span></li>"##
                + "\n"
        }
        html += ##"<li><a href="#schemas">Schemas</a></li><li><a href="#security">Authentication</a></li></ul></nav>"## + "\n"

        for (tag, description) in tags {
            let tagged = operations.filter { $0.tag == tag }
            guard !tagged.isEmpty else { continue }
            html += ##"<h2 id="tag-\##(Self.anchor(tag))">\##(HTMLPage.escape(tag))</h2>"## + "\n<p>\(HTMLPage.escape(description))</p>\n"
            for operation in tagged { html += render(operation) }
        }
        html += securitySection + schemasSection
        return HTMLPage(title: "\(title) API reference", body: html)
    }

    struct Operation {
        var method: String
        var path: String
        var tag: String
        var value: JSONValue
    }

    /// Every operation, by path and then method in the usual order.
    var operations: [Operation] {
        let paths = document["paths"]?.objectValue ?? [:]
        return paths.keys.sorted().flatMap { path in
            Self.methods.compactMap { method in
                guard let operation = paths[path]?[method] else { return nil }
                return Operation(method: method, path: path, tag: operation["tags"]?[0]?.stringValue ?? "", value: operation)
            }
        }
    }

    func render(_ operation: Operation) -> String {
        let value = operation.value
        let id = value["operationId"]?.stringValue ?? "\(operation.method)-\(operation.path)"
        var html =
            ##"<section id="\##(Self.anchor(id))"><h3><span class="method \##(operation.method)">\##(operation.method.uppercased())</span> <code>\##(HTMLPage.escape(operation.path))</code></h3>"##
            + "\n"
        if let summary = value["summary"]?.stringValue { html += "<p><strong>\(HTMLPage.escape(summary))</strong></p>\n" }
        if let description = value["description"]?.stringValue { html += HTMLPage.prose(description) + "\n" }
        html += "<p>Authentication: \(authentication(value["security"] ?? document["security"]))</p>\n"

        let parameters = (value["parameters"]?.arrayValue ?? []).map { resolve($0) }
        if !parameters.isEmpty {
            html += "<table><tr><th>parameter</th><th>in</th><th>schema</th><th>description</th></tr>\n"
            for parameter in parameters {
                let required = parameter["required"]?.boolValue == true ? " <em>required</em>" : ""
                html +=
                    "<tr><td><code>\(HTMLPage.escape(parameter["name"]?.stringValue ?? ""))</code>\(required)</td>"
                    + "<td>\(HTMLPage.escape(parameter["in"]?.stringValue ?? ""))</td><td>\(schemaSummary(parameter["schema"]))</td>"
                    + "<td>\(HTMLPage.prose(parameter["description"]?.stringValue ?? ""))</td></tr>\n"
            }
            html += "</table>\n"
        }
        if let body = value["requestBody"].map({ resolve($0) }) {
            html += "<h4>Request body\(body["required"]?.boolValue == true ? "" : " (optional)")</h4>\n"
            if let description = body["description"]?.stringValue { html += HTMLPage.prose(description) + "\n" }
            html += content(body["content"])
        }
        html += "<h4>Responses</h4>\n<table><tr><th>status</th><th>meaning</th></tr>\n"
        let responses = value["responses"]?.objectValue ?? [:]
        for status in responses.keys.sorted() {
            guard let response = responses[status] else { continue }
            let resolved = resolve(response)
            html += "<tr><td><strong>\(HTMLPage.escape(status))</strong></td><td>\(HTMLPage.prose(resolved["description"]?.stringValue ?? ""))"
            if let reference = response["$ref"]?.stringValue, let name = reference.split(separator: "/").last {
                html += ##"<p class="muted">\##(HTMLPage.escape(String(name)))</p>"##
            }
            html += content(resolved["content"], brief: response["$ref"] != nil) + "</td></tr>\n"
        }
        return html + "</table></section>\n"
    }

    /// Each media type with its schema and examples; `brief` (a shared error response) names the schema only.
    func content(_ content: JSONValue?, brief: Bool = false) -> String {
        guard let media = content?.objectValue, !media.isEmpty else { return "" }
        var html = ""
        for type in media.keys.sorted() {
            guard let entry = media[type] else { continue }
            html += "<p><code>\(HTMLPage.escape(type))</code>: \(schemaSummary(entry["schema"]))</p>\n"
            // A named schema's fields are shown here too, not only behind its link.
            if !brief, let schema = entry["schema"] { html += schemaTree(resolve(schema), depth: 0) }
            var examples: [JSONValue] = []
            if let example = entry["example"] { examples.append(example) }
            for name in (entry["examples"]?.objectValue ?? [:]).keys.sorted() {
                if let example = entry["examples"]?[name]?["value"] { examples.append(example) }
            }
            for example in examples where !brief {
                html += "<pre>\(HTMLPage.escape(Self.pretty(example)))</pre>\n"
            }
        }
        return html
    }

    /// One line: a type, a link to a named schema, or the choices.
    func schemaSummary(_ schema: JSONValue?) -> String {
        guard let schema else { return "" }
        if let reference = schema["$ref"]?.stringValue, let name = reference.split(separator: "/").last {
            return ##"<a href="#schema-\##(Self.anchor(String(name)))">\##(HTMLPage.escape(String(name)))</a>"##
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            if let choices = schema[key]?.arrayValue { return choices.map { schemaSummary($0) }.joined(separator: key == "allOf" ? " and " : " or ") }
        }
        var text: String
        switch schema["type"] {
        case .string(let type)?: text = type
        case .array(let types)?: text = types.compactMap(\.stringValue).joined(separator: " or ")
        default: text = schema["const"] != nil || schema["enum"] != nil ? "" : "any"
        }
        if text == "array", let items = schema["items"] { text = "array of " + schemaSummary(items) } else { text = HTMLPage.escape(text) }
        var notes: [String] = []
        if let format = schema["format"]?.stringValue { notes.append(format) }
        if let constant = schema["const"] { notes.append("always " + Self.compact(constant)) }
        if let values = schema["enum"]?.arrayValue { notes.append("one of " + values.map(Self.compact).joined(separator: ", ")) }
        for (key, word) in [
            ("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥"), ("maxLength", "length ≤"), ("minItems", "items ≥"),
            ("maxItems", "items ≤"),
        ] {
            if let bound = schema[key] { notes.append("\(word) \(Self.compact(bound))") }
        }
        if let pattern = schema["pattern"]?.stringValue { notes.append("matches " + pattern) }
        return text + (notes.isEmpty ? "" : " <span class=\"muted\">(\(HTMLPage.escape(notes.joined(separator: "; "))))</span>")
    }

    /// An object's properties as a nested list (to a few levels; deeper ones by name).
    func schemaTree(_ schema: JSONValue, depth: Int) -> String {
        // A named schema is a link (its summary); its fields are under Schemas.
        guard let properties = schema["properties"]?.objectValue, !properties.isEmpty, depth < 4 else {
            if let items = schema["items"], items["properties"] != nil { return schemaTree(items, depth: depth + 1) }
            return depth == 0 ? "<p>\(schemaSummary(schema))</p>\n" : ""
        }
        let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        var html = ##"<ul class="schema">"##
        for name in properties.keys.sorted() {
            guard let property = properties[name] else { continue }
            html += "<li><code>\(HTMLPage.escape(name))</code> \(schemaSummary(property))\(required.contains(name) ? " <em>required</em>" : "")"
            if let description = property["description"]?.stringValue { html += " — " + HTMLPage.escape(description) }
            html += schemaTree(property, depth: depth + 1) + "</li>"
        }
        return html + "</ul>\n"
    }

    func authentication(_ security: JSONValue?) -> String {
        let requirements = security?.arrayValue ?? []
        let names = requirements.compactMap { $0.objectValue?.keys.sorted() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return "none" }
        return names.map { schemes in
            schemes.map { ##"<a href="#security-\##(Self.anchor($0))">\##(HTMLPage.escape($0))</a>"## }.joined(separator: " + ")
        }.joined(separator: " or ")
    }

    var securitySection: String {
        let schemes = document["components"]?["securitySchemes"]?.objectValue ?? [:]
        var html = ##"<h2 id="security">Authentication</h2>"## + "\n<table><tr><th>scheme</th><th>how</th><th>what</th></tr>\n"
        for name in schemes.keys.sorted() {
            guard let scheme = schemes[name] else { continue }
            let how =
                scheme["type"]?.stringValue == "apiKey"
                ? "header <code>\(HTMLPage.escape(scheme["name"]?.stringValue ?? ""))</code>"
                : "<code>Authorization: Bearer …</code>" + (scheme["bearerFormat"]?.stringValue.map { " (\(HTMLPage.escape($0)))" } ?? "")
            html +=
                ##"<tr id="security-\##(Self.anchor(name))"><td><code>\##(HTMLPage.escape(name))</code></td><td>\##(how)</td><td>\##(HTMLPage.prose(scheme["description"]?.stringValue ?? ""))</td></tr>"##
                + "\n"
        }
        return html + "</table>\n"
    }

    var schemasSection: String {
        let schemas = document["components"]?["schemas"]?.objectValue ?? [:]
        var html = ##"<h2 id="schemas">Schemas</h2>"## + "\n"
        for name in schemas.keys.sorted() {
            guard let schema = schemas[name] else { continue }
            html += ##"<h3 id="schema-\##(Self.anchor(name))">\##(HTMLPage.escape(name))</h3>"## + "\n"
            if let description = schema["description"]?.stringValue { html += HTMLPage.prose(description) + "\n" }
            html += schemaTree(schema, depth: 0)
        }
        return html
    }

    /// A component a `$ref` names (responses, parameters, request bodies), or the value itself.
    func resolve(_ value: JSONValue) -> JSONValue {
        guard let reference = value["$ref"]?.stringValue, reference.hasPrefix("#/") else { return value }
        var target: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
        return target ?? value
    }

    static func anchor(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    }

    static func compact(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return String(decoding: value.jsonBytes, as: UTF8.self)
    }

    static func pretty(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? compact(value)
    }
}

/// Reading a parsed document without a type for each of its parts.
extension JSONValue {
    fileprivate subscript(index: Int) -> JSONValue? {
        if case .array(let values) = self, values.indices.contains(index) { return values[index] }
        return nil
    }

    fileprivate var objectValue: [String: JSONValue]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    fileprivate var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}
