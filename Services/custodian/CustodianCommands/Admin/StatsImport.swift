import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// `custodian stats …`: the LEMON statistics' administration, through the gateway's admin API.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "LEMON statistics: import public COVID-19 case data.",
        subcommands: [Import.self])

    /// `custodian stats import FILE`: `POST /admin/v1/statistics/covid/imports` with the file as the body.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Imports daily COVID-19 figures from a CSV file (country,date,confirmed,deaths,recovered).",
            discussion: """
                Every line is checked before anything is stored; a day already imported for a country is replaced. \
                The file may be up to 6 MiB; split larger ones by date.
                """)

        @Argument(help: "The CSV file, with the header country,date,confirmed,deaths,recovered.") var file: String
        @Option(help: "Where the figures come from (shown to apps as Source).") var source: String?
        @Option(help: "A link to the source (shown to apps as SourceUrl).") var sourceURL: String?
        @Option(help: "The gateway's URL.") var server = TLSTrustOptions.defaultServer
        @Option(parsing: .unconditional, help: "An admin token (default: CUSTODIAN_ADMIN_TOKEN, else the file --token-file).") var token: String?
        @Option(help: "A file holding the admin token (custodian up keeps one in <data-dir>/admin-token).") var tokenFile = ".custodian/admin-token"
        @OptionGroup var trust: TLSTrustOptions

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
            guard data.count <= 6 * 1024 * 1024 else { throw CLIError("\(file) is larger than 6 MiB: split it by date and import the parts") }
            let token = try adminToken()
            let client = try trust.httpClient()
            let result: Result<(HTTPResponseStatus, Data), any Error>
            do {
                result = .success(try await post(client, data: data, token: token))
            } catch {
                result = .failure(error)
            }
            try? await client.shutdown()
            let (status, answer) = try result.mapError { trust.explain($0, server: server) }.get()
            let text = String(decoding: answer, as: UTF8.self)
            guard status == .created else {
                var message = "the import was refused (\(status.code)): \(text)"
                if let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any],
                    let error = object["error"] as? [String: Any], let summary = error["message"] as? String
                {
                    message = "the import was refused (\(status.code)): \(summary)"
                    for problem in error["details"] as? [[String: Any]] ?? [] {
                        message += "\n  line \(problem["line"] ?? "?"): \(problem["message"] ?? "")"
                    }
                }
                throw CLIError(message)
            }
            print(text)
        }

        private func adminToken() throws -> String {
            if let token { return token }
            if let token = ProcessInfo.processInfo.environment["CUSTODIAN_ADMIN_TOKEN"], !token.isEmpty { return token }
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("pass --token, set CUSTODIAN_ADMIN_TOKEN or point --token-file at an admin token")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        private func post(_ client: HTTPClient, data: Data, token: String) async throws -> (HTTPResponseStatus, Data) {
            var components = URLComponents(
                string: server.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/admin/v1/statistics/covid/imports")
            components?.queryItems = [URLQueryItem(name: "source", value: source), URLQueryItem(name: "source_url", value: sourceURL)]
                .filter { $0.value != nil }
            // `+` is a space in a query; a source name may hold one.
            let query = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            components?.percentEncodedQuery = query
            guard let url = components?.string else { throw ValidationError("--server is not a URL") }
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Content-Type", value: "text/csv; charset=utf-8")
            request.body = .bytes(ByteBuffer(bytes: data))
            let response = try await client.execute(request, timeout: .seconds(120))
            return (response.status, Data((try await response.body.collect(upTo: 1 << 20)).readableBytesView))
        }
    }
}
