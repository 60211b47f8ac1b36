import Foundation
import Testing

/// The pages in docs/ show one platform, the one README.md's "Try it" runs: a default `custodian up` on
/// `https://127.0.0.1:8443`, with `$B` for its base URL and `$TOKEN` for its admin token
/// (`B=https://127.0.0.1:8443`, `TOKEN=$(cat .custodian/admin-token)`). Examples pasted from a page then work
/// as they are, and work together with the other pages' ones.
@Suite("Documentation conventions")
struct DocumentationConventionsTests {
    /// `custodian up`'s default port.
    static let defaultPort = "8443"

    /// Local addresses with another port that a page shows on purpose, as (page, address). Each needs its reason.
    static let allowedAddresses: Set<String> = [
        // The error `custodian route upload` and `custodian geotag` give for a server that does not answer: port 1
        // is one nothing listens on, not a platform the examples ran against.
        "geotag.md 127.0.0.1:1",
        // An OpenTelemetry collector's OTLP/HTTP port (docs/operations.md, "Tracing"): `custodian up --otlp` points there.
        "operations.md 127.0.0.1:4318", "benchmarks.md 127.0.0.1:4318",
    ]

    /// A loopback address with its port, also URL-encoded (`127.0.0.1%3A8443`, as in a `PIA_URL=` query).
    static var localAddress: Regex<(Substring, Substring)> { #/(?:127\.0\.0\.1|localhost)(?::|%3[Aa])([0-9]+)/# }

    /// `$T` (or `${T}`) as a variable of its own, the old name of the admin token; `$TOKEN`, `$TS` … do not match.
    static var oldTokenVariable: Regex<Substring> { #/\$(?:T(?![A-Za-z0-9_])|\{T\})/# }

    /// `$B` or `$TOKEN` as variables of their own.
    static var conventionVariable: Regex<Substring> { #/\$(?:B|TOKEN)(?![A-Za-z0-9_])/# }

    struct Page {
        var name: String
        var lines: [Substring]
    }

    /// Every docs/*.md by name, and the OpenAPI document, whose examples the gateway serves as /docs.
    static func pages() throws -> [Page] {
        let folder = repositoryRoot.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".md") || $0 == "openapi.yaml" }
            .sorted()
        return try names.map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return Page(name: name, lines: text.split(separator: "\n", omittingEmptySubsequences: false))
        }
    }

    @Test func everyPageIsRead() throws {
        let names = try Self.pages().map(\.name)
        for page in ["README.md", "admin.md", "geotag.md", "links.md", "twomes.md", "vault.md", "openapi.yaml"] {
            #expect(names.contains(page), "docs/\(page) was not found among \(names)")
        }
    }

    @Test func examplesUseTheDefaultPort() throws {
        for page in try Self.pages() {
            for (index, line) in page.lines.enumerated() {
                for match in line.matches(of: Self.localAddress) where match.output.1 != Self.defaultPort {
                    guard !Self.allowedAddresses.contains("\(page.name) \(match.output.0)") else { continue }
                    Issue.record(
                        """
                        docs/\(page.name):\(index + 1): `\(match.output.0)` is not the default port; use \
                        https://127.0.0.1:\(Self.defaultPort) (or "$B/…"), as README.md's "Try it" does
                        """)
                }
            }
        }
    }

    @Test func theAdminTokenIsCalledTOKEN() throws {
        for page in try Self.pages() {
            for (index, line) in page.lines.enumerated() where line.contains(Self.oldTokenVariable) {
                Issue.record("docs/\(page.name):\(index + 1): the admin token is `$TOKEN`, not `$T`: \(line)")
            }
        }
    }

    /// The command line is `custodian`, on PATH as README.md's first block puts it there, never a build folder's path
    /// or `swift run`, which a reader would have to change to paste an example.
    static var commandByPath: Regex<Substring> { #/\.build[^ ]*/custodian|swift run custodian/# }

    @Test func theCommandLineIsCalledCustodian() throws {
        for page in try Self.pages() {
            for (index, line) in page.lines.enumerated() where line.contains(Self.commandByPath) {
                Issue.record("docs/\(page.name):\(index + 1): call the command line `custodian` (on PATH, README.md): \(line)")
            }
        }
    }

    /// A page whose examples use `$B` or `$TOKEN` says how they are set, pointing to README.md's "Try it",
    /// before its first example does.
    @Test func pagesSayWhereBAndTOKENComeFrom() throws {
        for page in try Self.pages() {
            var inCode = false
            var firstUse: Int?
            for (index, line) in page.lines.enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                    inCode.toggle()
                } else if inCode && line.contains(Self.conventionVariable) {
                    firstUse = index
                    break
                }
            }
            guard let firstUse else { continue }
            let explained = page.lines[..<firstUse].contains { $0.contains("README.md#try-it") }
            #expect(
                explained,
                """
                docs/\(page.name):\(firstUse + 1) uses $B or $TOKEN, but no line before it says how they are set (a link \
                to ../README.md#try-it with `B=https://127.0.0.1:8443`, `TOKEN=$(cat .custodian/admin-token)`)
                """)
        }
    }
}
