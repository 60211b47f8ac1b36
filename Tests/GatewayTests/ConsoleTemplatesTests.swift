import CustodianContracts
import Foundation
import Testing

@testable import GatewayKit

/// The console's templates: each file of `Console/Templates` is compiled into the gateway, parses, and shows its page's
/// view model (swift-mustache reads a struct's stored properties by name, so a renamed property would silently show
/// nothing: each sample's values must appear). Pages as a browser gets them: IntegrationTests' ConsoleTests.
@Suite("Console templates")
struct ConsoleTemplatesTests {
    static let folder = ConsolePartsTests.consoleFolder.appending(path: "Templates")

    @Test func everyTemplateFileIsCompiledInAndParses() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path()).filter { $0.hasSuffix(".mustache") }
        #expect(Set(ConsoleTemplates.sources.map(\.name)) == Set(files.map { String($0.dropLast(".mustache".count)) }))
        for source in ConsoleTemplates.sources {
            let onDisk = try Data(contentsOf: Self.folder.appending(path: "\(source.name).mustache"))
            #expect(Array(onDisk) == source.bytes, "\(source.name) is the file as it is")
        }
        _ = try ConsoleTemplates.makeLibrary()
    }

    /// A template of each page with a view model whose values it must show.
    static var samples: [(template: String, view: Any, shows: [String])] {
        twomesSamples + [
            (
                "layout", ConsoleLayout(title: "T-1", content: "<p>C-1</p>", notice: "N-1", error: "E-1"),
                ["<title>T-1 ·", "<p>C-1</p>", "N-1", "E-1"]
            ),
            ("message", MessageView(message: "M-1"), ["<p>M-1</p>", #"<a href="/console">Back to the overview</a>"#]),
            ("login", LoginView(csrf: "K-1"), [#"value="K-1""#]),
            (
                "overview",
                OverviewView(
                    counts: [.init(label: "L-1", value: "9-1", href: "/h-1")], health: [.init(service: "S-1", status: "down-1", ok: false)],
                    traffic: .init(requests: 71, clientErrors: 72, serverErrors: 73, since: "Z-1")),
                ["<strong>9-1</strong><a href=\"/h-1\">L-1</a>", "S-1", "down-1", ">71<", ">72<", ">73<", "since Z-1"]
            ),
            ("export", ExportView(types: [.init(name: "N-5", display_name: "DN-5", properties: "P-5")]), ["DN-5 (N-5)", "P-5"]),
            (
                "opensense",
                OpenSenseView(
                    devices: [.init(device_id: "D-6", href: "/h-6", registered_at: "R-6", uploads: 61, batches: 62, last: "L-6")],
                    q: "Q-6", next: "/n-6", first: "/f-6",
                    fields: [
                        .init(key: "k6", label: "L6", checkbox: false, textarea: false, value: "V-6", checked: false, error: "E-6"),
                        .init(key: "c6", label: "CL6", checkbox: true, textarea: false, value: "true", checked: true, error: nil),
                    ],
                    version: 66),
                [
                    #"<a href="/h-6">D-6</a>"#, "R-6", ">61<", ">62<", "L-6", #"value="V-6""#, #"id="config-k6-error">E-6</p>"#, "checked",
                    "now version 66",
                    #"name="q" maxlength="128" value="Q-6""#, #"href="/n-6">Next devices"#, #"href="/f-6">First devices"#,
                ]
            ),
            (
                "opensense-device",
                OpenSenseDeviceView(
                    device_id: "D-13", registered_at: "R-13", last_upload: "L-13", from: "F-13", to: "T-13", summary: "S-13",
                    days: [.init(date: "2020-01-01", count: 131, gap: false), .init(date: "2020-01-02", count: 0, gap: true)],
                    chart: "<svg id=\"C-13\"></svg>"),
                [
                    "<code>D-13</code>", "<figure class=\"chart\"><svg id=\"C-13\"></svg></figure>", "R-13", "L-13", "S-13, from F-13 to T-13",
                    "<tr><td>2020-01-01</td><td class=\"number\">131</td>",
                    #"<tr class="gap"><td>2020-01-02</td><td class="number">0 <span class="hint">(gap)</span>"#,
                ]
            ),
            (
                "vault",
                VaultView(
                    users: [
                        .init(
                            id: 71, repos: [.init(identifier: "R-7", items: 72)],
                            modules: [.init(id: 73, name: "M-7", permissions: [.init(repo: "P-7", access: "read")])])
                    ],
                    next: "/n-74", first: "/f-74",
                    created: Created(heading: "H-7", fields: [.init(name: "F-7", value: "V-7", secret: true)], qr: "data:q-7")),
                [
                    #"data-user="71""#, "R-7 (72)", "<strong>M-7</strong> (module 73): P-7 read;", #"href="/n-74">Next users"#,
                    #"href="/f-74">First users"#, "<h2>H-7</h2>",
                    #"<dt>F-7</dt><dd class="secret">V-7</dd>"#, "data:q-7",
                ]
            ),
            (
                "consumers",
                ConsumersView(
                    consumers: [.init(name: "N-8", consumer_key: "K-8", created_at: "C-8")],
                    created: .init(consumer_key: "CK-8", consumer_secret: "CS-8")),
                ["N-8", "<code>K-8</code>", "C-8", "CK-8", "CS-8"]
            ),
            (
                "links",
                LinksView(
                    links: [.init(code_prefix: "P-9", title: "T-9", created_at: "C-9", expires_at: "E-9", expired: true)], q: "Q-9", next: "/n-9",
                    first: "/f-9",
                    created: .init(url: "https://u-9", validFor: "1 day", qr: "data:q-9"),
                    entered: .init(app_url: "A-9", title: "TT-9", ttl_days: "1430")),
                [
                    "P-9", "T-9", "C-9", "E-9", "expired", #"href="/n-9">Older"#, #"href="/f-9">Newest"#, #"value="Q-9""#, "(valid for 1 day)",
                    "data:q-9", #"value="A-9""#, #"value="TT-9""#,
                    #"value="1430""#,
                ]
            ),
            (
                "lemon",
                LemonView(
                    chart: "<svg>C-10</svg>", statuses: [.init(name: "S-10", count: 101)], countries: [.init(name: "N-10", count: 102)],
                    figures: [
                        .init(country: "ZZ", date: "D-10", confirmed: 103, deaths: 104, recovered: "105", source: "SO-10", imported_at: "I-10")
                    ],
                    filter: .init(country: "FC", from: "FF-10", to: "FT-10", any: true), next: "/n-10", first: "/f-10"),
                [
                    "<svg>C-10</svg>", "S-10", ">101<", "N-10", ">102<", "<td>ZZ</td><td>D-10</td>", ">103<", ">104<", ">105<", "SO-10", "I-10",
                    #"value="FC""#, #"value="FF-10""#, #"value="FT-10""#, #"href="/n-10">Older"#, #"href="/f-10">Newest"#, "All figures",
                ]
            ),
            ("covid-import", CovidImportView(rows: "1 row", source: "S-11"), ["Importing 1 row from S-11", "<!--outcome-->"]),
            (
                "covid-outcome",
                CovidOutcomeView(
                    imported: .init(rows: "2 rows", inserted: 121, updated: 122, countries: "GB, ZA", first_day: "F-12", last_day: "L-12"), error: nil
                ),
                ["Imported 2 rows (121 new, 122 updated) for GB, ZA, F-12 to L-12."]
            ),
            (
                "audit",
                AuditView(
                    entries: [
                        .init(
                            seq: 131, at: "AT-13", phase: "begin", who: "W-13", action: "GET /x",
                            targets: [.init(id: "T-13", link: "T-13"), .init(id: "812345", link: "812345", participant: .init(812_345))],
                            query: "Q-13",
                            status: "200", rows: "132", bytes: "133")
                    ],
                    filters: .init(identity: "I-13", action: nil, target: nil, from: nil, to: nil), filterQuery: "identity=I-13", next: 134),
                [
                    #"data-seq="131""#, "AT-13", "W-13", "GET /x", "?target=T-13", "Q-13", ">132<", ">133<", #"value="I-13""#,
                    "after=134&identity=I-13", #"(<a class="participant" href="/console/twomes/accounts/812345">participant</a>)"#,
                ]
            ),
            (
                "tokens",
                TokensView(
                    identities: [
                        .init(
                            id: "ID-14", label: "L-14", scope: "owner", created_by: "B-14", created_at: "C-14", expires_at: "", last_used_at: "U-14",
                            revoked_at: "", active: true)
                    ],
                    scopes: ["researcher"], created: .init(label: "NL-14", scope: "operator", token: "TK-14")),
                [
                    #"data-id="ID-14""#, "L-14", "B-14", "C-14", "U-14", #"name="id" value="ID-14""#, "<option>researcher</option>",
                    "NL-14 (operator)", "TK-14",
                ]
            ),
            (
                "erasure",
                ErasureView(
                    owner: true, operator: true,
                    receipt: .init(
                        target: "twomes_account", id: "815", erased_at: "E-15", by: "B-15", counts: [.init(kind: "K-15", count: 151)], nothing: false),
                    detached: "D-15 was attached to no account."),
                [
                    "Erased twomes_account 815 at E-15, by B-15.", "<td>K-15</td><td class=\"number\">151</td>", "D-15 was attached to no account.",
                    #"id="erase-account""#, #"id="detach-device""#,
                ]
            ),
        ]
    }

    @Test func everyTemplateShowsItsViewModel() {
        #expect(Set(Self.samples.map(\.template)) == Set(ConsoleTemplates.sources.map(\.name)), "a sample for every template")
        for sample in Self.samples {
            let html = ConsoleTemplates.render(sample.view, sample.template)
            for text in sample.shows {
                #expect(html.contains(text), "\(sample.template) does not show \(text): \(html)")
            }
        }
    }

    /// The polish of issue 28: a short link's days are not pre-filled (typing 30 gave 1430), checkboxes sit in a row
    /// with their label, and no page repeats a heading.
    @Test func theLinkFormSuggestsItsDefaultRatherThanPrefillingIt() {
        let form = ConsoleTemplates.render(LinksView(links: [], next: nil, created: nil, entered: nil), "links")
        let field = String(form[form.range(of: #"<input id="link-ttl""#)!.lowerBound...].prefix { $0 != ">" })
        #expect(field.contains(#"placeholder="14""#) && field.contains(#"value="""#), "\(field)")
    }

    @Test func everyLabelledCheckboxSitsInARowWithItsLabel() throws {
        let fields = ConsoleRoutes.configurationFields.map {
            OpenSenseView.Field(key: $0.key, label: $0.label, checkbox: $0.kind == .checkbox, textarea: $0.kind == .json, value: "", checked: false)
        }
        let pages = [
            ConsoleTemplates.render(VaultView(users: [], next: nil, created: nil), "vault"),
            ConsoleTemplates.render(OpenSenseView(devices: [], fields: fields, version: 1), "opensense"),
        ]
        var boxes = 0
        for page in pages {
            for match in page.matches(of: /<div([^>]*)>(?:(?!<\/div>).)*?<input id="([^"]+)"[^>]*type="checkbox"/.dotMatchesNewlines()) {
                boxes += 1
                #expect(match.1 == #" class="check""#, "checkbox \(match.2) is not in a row with its label")
                #expect(page.contains(#"<label for="\#(match.2)">"#))
            }
        }
        #expect(boxes == 3, "the grant form's two, the configuration's one")
    }

    @Test func noPageRepeatsAHeading() {
        for sample in Self.samples where sample.template != "layout" {
            let html = ConsoleTemplates.render(sample.view, sample.template)
            let headings = html.matches(of: /<h[1-3][^>]*>([^<]*)<\/h[1-3]>/).map { String($0.1) }
            #expect(Set(headings).count == headings.count, "\(sample.template) repeats a heading: \(headings)")
        }
        // The page's own title is its h1: no h2 under it says the same.
        let titles = ["devices": "Devices", "links": "Short links", "consumers": "API consumers", "vault": "Data vault", "opensense": "OpenSense"]
        for sample in Self.samples {
            guard let title = titles[sample.template] else { continue }
            #expect(!ConsoleTemplates.render(sample.view, sample.template).contains("<h2>\(title)</h2>"), "\(sample.template)")
        }
    }
}
