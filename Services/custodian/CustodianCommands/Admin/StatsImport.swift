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
        @OptionGroup var api: AdminAPIOptions

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
            guard data.count <= 6 * 1024 * 1024 else { throw CLIError("\(file) is larger than 6 MiB: split it by date and import the parts") }
            var components = URLComponents()
            components.path = "/admin/v1/statistics/covid/imports"
            let items = [URLQueryItem(name: "source", value: source), URLQueryItem(name: "source_url", value: sourceURL)].filter { $0.value != nil }
            components.queryItems = items.isEmpty ? nil : items
            // `+` is a space in a query; a source name may hold one.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            guard let target = components.string else { throw ValidationError("--source or --source-url cannot be sent") }
            let (status, answer) = try await api.send(.POST, target, body: data, contentType: "text/csv; charset=utf-8")
            guard status == .created else { throw AdminAPIOptions.refusal("the import", status: status, answer: answer) }
            print(String(decoding: answer, as: UTF8.self))
        }
    }
}
