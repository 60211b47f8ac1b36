import CustodianJSON
import CustodianRPC
import CustodianProcess
import Foundation
@testable import GatewayKit
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessTestSupport
import Testing

/// docs/openapi.yaml describes every route the gateway serves, and nothing else: checked against the route table in
/// both directions, validated by a real OpenAPI validator, and served (with its reference page) as written.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The routes the gateway answers itself, without a service.
    static let ownRoutes: Set<String> = ["GET /", "GET /docs", "GET /openapi.json", "GET /healthz", "GET /readyz", "GET /metrics"]
    static let methods = ["get", "put", "post", "patch", "delete"]

    let document = OpenAPIDocument.value

    func operation(_ route: Route) -> JSONValue? {
        document["paths"]?[route.path]?[route.method.rawValue.lowercased()]
    }

    /// The gateway converts the document it was built with; PyYAML and Python's `json` (in the tools' virtual environment,
    /// Deploy/dev/python-tools.sh) convert docs/openapi.yaml as it is now, as a script did when the gateway served a copy.
    /// Equal bytes: the build has the document, and `/openapi.json` answers as it always has.
    @Test func theServedDocumentIsDocsOpenAPIYamlAsPythonWritesIt() async throws {
        let python = """
            import json, sys, yaml
            document = yaml.safe_load(open("docs/openapi.yaml", encoding="utf-8"))
            sys.stdout.buffer.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            """
        let (status, written, problems) = try await Self.runInToolsEnvironment(
            ["-c", #"source Deploy/dev/python-tools.sh >&2 && exec "$tools/python" -c "$0""#, python])
        try #require(status == 0, "\(problems)")
        // The first difference and what is around it: the whole documents would be 285 KB each in the report.
        let served = OpenAPIDocument.bytes, expected = Array(written)
        let at = zip(served, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(served.count, expected.count)
        func around(_ bytes: [UInt8]) -> String { String(decoding: bytes[max(0, at - 60)..<min(bytes.count, at + 60)], as: UTF8.self) }
        let difference = "at byte \(at): …\(around(served))… instead of …\(around(expected))…"
        #expect(served.count == expected.count && at == served.count, "/openapi.json differs from Python's conversion \(difference)")
        #expect(document["openapi"]?.stringValue == "3.1.0")
    }

    /// What the conversion keeps that a parsed value would not show: the order of keys, a repeated key's first place and
    /// last value, YAML 1.1's types, and strings escaped as Python's `json` escapes them.
    @Test func yamlBecomesJSONInTheDocumentsOwnOrder() throws {
        let yaml = #"""
            zeta: 1
            alpha: [yes, off, ~, 0x1F, 017, 1_000, -2147483648, 1.0, 52.50655, 1e5, 1.5e-05, .inf, '200', "q\"\u0007\t/é"]
            200: {b: 2, a: null}
            zeta: 2
            text: |
              two
              lines

            """#
        // What Python 3 with PyYAML 6 prints for it.
        let python =
            #"{"zeta":2,"alpha":[true,false,null,31,15,1000,-2147483648,1.0,52.50655,"1e5",1.5e-05,Infinity,"200","q\"\u0007\t/é"],"#
            + #""200":{"b":2,"a":null},"text":"two\nlines\n"}"#
        let written = String(decoding: try OpenAPIJSON.bytes(fromYAML: Array(yaml.utf8)), as: UTF8.self)
        #expect(written == python, "\(written)")
        #expect(throws: (any Error).self) { try OpenAPIJSON.bytes(fromYAML: Array("[a: {".utf8)) }
    }

    @Test func everyRouteIsDocumentedAsItIsServed() throws {
        for route in RouteTable.all {
            let name = "\(route.method.rawValue) \(route.path)"
            guard let operation = operation(route) else {
                Issue.record("\(name) (\(route.rpcMethod)) is not in docs/openapi.yaml")
                continue
            }
            let expected: [[String: [String]]] =
                switch route.auth {
                case .none: []
                case .admin: [["adminToken": []]]
                // The OwnYourData API also takes the token as `?access_token=` (Authenticator).
                case .jwt: route.style == .oyd ? [["accessToken": []], ["accessTokenQuery": []]] : [["accessToken": []]]
                case .opaque(let kind): [[kind == .device ? "twomesDeviceToken" : "twomesAccountToken": []]]
                case .signature: [["geotagKey": [], "geotagTimestamp": [], "geotagSignature": []]]
                }
            let security = (operation["security"].flatMap(Self.array) ?? []).map { requirement in
                (Self.object(requirement) ?? [:]).mapValues { (Self.array($0) ?? []).compactMap(\.stringValue) }
            }
            #expect(security == expected, "\(name): security \(security), but the route's auth is \(route.auth)")

            let responses = Self.object(operation["responses"] ?? .null) ?? [:]
            #expect(responses[String(route.successStatus.code)] != nil, "\(name): its success status \(route.successStatus.code) is not documented")
            // Any routed call may meet a rate limit, a service or database that is down, or a service that is too slow.
            for status in ["429", "503", "504"] {
                #expect(responses[status] != nil, "\(name): \(status) is not documented")
            }
            if route.method == .post || route.method == .put {
                #expect(responses["400"] != nil, "\(name): a malformed body's 400 is not documented")
            }
            if route.auth != .none {
                #expect(responses["401"] != nil || responses["403"] != nil, "\(name): a missing credential's 401 or 403 is not documented")
            }

            let pathParameters = route.path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            let documented = (operation["parameters"].flatMap(Self.array) ?? []).filter { $0["in"]?.stringValue == "path" }
            for parameter in pathParameters {
                let entry = documented.first { $0["name"]?.stringValue == parameter }
                #expect(entry?["required"] == .bool(true), "\(name): path parameter \(parameter) is not documented as required")
            }
            #expect(documented.count == pathParameters.count, "\(name): documents path parameters the path does not have")
            #expect(operation["operationId"]?.stringValue?.isEmpty == false, "\(name): no operationId")
        }
    }

    @Test func everyDocumentedOperationIsServed() {
        let served = Set(RouteTable.all.map { "\($0.method.rawValue) \($0.path)" }).union(Self.ownRoutes)
        let paths = Self.object(document["paths"] ?? .null) ?? [:]
        var operationIDs: [String: String] = [:]
        for (path, item) in paths {
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                let name = "\(method.uppercased()) \(path)"
                #expect(served.contains(name), "docs/openapi.yaml documents \(name), which the gateway does not serve")
                if let id = operation["operationId"]?.stringValue {
                    #expect(operationIDs[id] == nil, "operationId \(id) is used by \(name) and \(operationIDs[id] ?? "")")
                    operationIDs[id] = name
                }
            }
        }
        #expect(operationIDs.count == RouteTable.all.count + Self.ownRoutes.count)
    }

    /// openapi-spec-validator (PyPI), in the tools' virtual environment the script makes.
    @Test func aValidatorAcceptsTheDocument() async throws {
        let (status, output, problems) = try await Self.runInToolsEnvironment([Self.repository.path + "/Deploy/dev/validate-openapi.sh"])
        #expect(status == 0, "\(String(decoding: output, as: UTF8.self))\(problems)")
    }

    /// Runs bash with `arguments` in the repository: its exit status, its output, and what it wrote to standard error.
    /// On a fresh machine the tools' environment is made first (pip, for a minute or more).
    static func runInToolsEnvironment(_ arguments: [String]) async throws -> (status: Int32, output: Data, errors: String) {
        let run = try await CommandRunner.run("/bin/bash", arguments, directory: Self.repository, together: false)
        return (run.status, Data(run.stdout.utf8), run.stderr)
    }

    @Test func theGatewayServesTheDocumentItsReferenceAndAHomePage() async throws {
        let configuration = try Configuration(
            environment: ["CUSTODIAN_INSECURE_HTTP": "1", "CUSTODIAN_RUNTIME_DIR": "/tmp/cgw-openapi"], arguments: [])
        let app = try buildApplication(configuration: configuration, logger: Logger(label: "openapi-tests"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let served = try JSONValue.parse(Array(buffer: response.body), maximumDepth: 128)
                #expect(served == document)
            }
            try await client.execute(uri: "/docs", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let policy = response.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("default-src 'none'") && !policy.contains("unsafe") && !policy.contains("script-src"))
                let html = String(buffer: response.body)
                #expect(html.contains(#"<a href="/console">the console</a>"#), "the reference leads researchers to the console")
                // Nothing fetched from elsewhere: no script, no external stylesheet, font or image.
                #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("src=\"http"))
                for route in RouteTable.all {
                    let path = route.path.replacingOccurrences(of: "&", with: "&amp;")
                    #expect(
                        html.contains("\(route.method.rawValue)</span> <code>\(path)</code>"),
                        "/docs does not show \(route.method.rawValue) \(route.path)")
                }
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("href=\"/docs\"") && html.contains("href=\"/openapi.json\"") && html.contains("href=\"/console\""))
            }
        }
    }

    static func array(_ value: JSONValue) -> [JSONValue]? {
        if case .array(let values) = value { return values }
        return nil
    }

    static func object(_ value: JSONValue) -> [String: JSONValue]? {
        if case .object(let fields) = value { return fields }
        return nil
    }
}
