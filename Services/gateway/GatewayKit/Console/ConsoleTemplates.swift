import Mustache

/// The console's look and the templates of its pages. The templates are the `.mustache` files in `Templates/`, compiled
/// into the gateway as SwiftPM resources (`.embedInCode`: no files to deploy next to it) and rendered with each page's
/// view model (a struct; swift-mustache reads its stored properties by name). Every value is HTML-escaped by `{{…}}`;
/// only the layout's `{{{content}}}` (a rendered template) and the server's own SVG charts are inserted as they are.
enum ConsoleTemplates {
    /// One entry per file of `Templates/` (ConsolePartsTests checks that none is missing and that each renders).
    static let sources: [(name: String, bytes: [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("message", PackageResources.message_mustache),
        ("login", PackageResources.login_mustache),
        ("overview", PackageResources.overview_mustache),
        ("accounts", PackageResources.accounts_mustache),
        ("account-created", PackageResources.account_created_mustache),
        ("devices", PackageResources.devices_mustache),
        ("participant", PackageResources.participant_mustache),
        ("device", PackageResources.device_mustache),
        ("silent", PackageResources.silent_mustache),
        ("cohort", PackageResources.cohort_mustache),
        ("cohort-sheet", PackageResources.cohort_sheet_mustache),
        ("export", PackageResources.export_mustache),
        ("opensense", PackageResources.opensense_mustache),
        ("opensense-device", PackageResources.opensense_device_mustache),
        ("vault", PackageResources.vault_mustache),
        ("consumers", PackageResources.consumers_mustache),
        ("links", PackageResources.links_mustache),
        ("lemon", PackageResources.lemon_mustache),
        ("covid-import", PackageResources.covid_import_mustache),
        ("covid-outcome", PackageResources.covid_outcome_mustache),
        ("audit", PackageResources.audit_mustache),
        ("tokens", PackageResources.tokens_mustache),
        ("erasure", PackageResources.erasure_mustache),
    ]

    /// What the navigation lists: `section` is the ``ConsolePage/section`` of the pages under it.
    static let navigation: [(id: String, href: String, label: String, section: String)] = [
        ("nav-overview", "/console", "Overview", "overview"),
        ("nav-accounts", "/console/twomes/accounts", "Twomes accounts", "accounts"),
        ("nav-devices", "/console/twomes/devices", "Devices", "devices"),
        ("nav-silent", "/console/twomes/silent", "Silent devices", "silent"),
        ("nav-export", "/console/twomes/export", "Measurements", "export"),
        ("nav-opensense", "/console/opensense", "OpenSense", "opensense"),
        ("nav-vault", "/console/vault", "Data vault", "vault"),
        ("nav-consumers", "/console/consumers", "API consumers", "consumers"),
        ("nav-links", "/console/links", "Short links", "links"),
        ("nav-lemon", "/console/lemon", "LEMON", "lemon"),
        ("nav-erasure", "/console/erasure", "Erasure", "erasure"),
        ("nav-audit", "/console/audit", "Audit log", "audit"),
        ("nav-tokens", "/console/tokens", "Admin tokens", "tokens"),
    ]

    /// Sections only owners see in the navigation.
    static let ownersSections: Set<String> = ["audit", "tokens"]

    /// Colours keep a contrast of at least 7:1 against their background; focus is always visible.
    static let stylesheet = """
        body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff}
        header{background:#1f3347;color:#fff;padding:.4rem 1.5rem}header nav{display:flex;flex-wrap:wrap;align-items:center;gap:.2rem 1rem}
        header ul{list-style:none;display:flex;flex-wrap:wrap;gap:.2rem 1rem;margin:0;padding:0}
        header a{color:#fff}header a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
        header form{margin:0}header #identity{margin:0 0 0 auto}.hint-light{color:#dde5ee}main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
        h1{margin:.5rem 0 1rem}h2{margin-top:2rem;border-bottom:1px solid #bbb}
        a{color:#0b4f9c}a:focus,button:focus,input:focus,select:focus,textarea:focus,summary:focus{outline:3px solid #b35c00;outline-offset:2px}
        table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}
        th{background:#eef1f4}td.number,th.number{text-align:right}
        form.stack{display:grid;gap:.6rem;max-width:36rem;margin:.5rem 0 1.5rem}form.stack>div{display:grid;gap:.15rem;justify-items:start}
        form.stack input:not([type=checkbox]),form.stack select,form.stack textarea{justify-self:stretch}
        form.stack>div.check{display:flex;align-items:center;gap:.5rem}form.stack>div.check label{font-weight:400}
        label{font-weight:600}.hint{color:#444;font-size:.9rem}input,select,textarea{font:inherit;padding:.25rem .4rem;border:1px solid #555;border-radius:3px}
        textarea{font-family:ui-monospace,monospace;font-size:.9rem}
        button{font:inherit;padding:.3rem .9rem;border:0;border-radius:3px;background:#0b4f9c;color:#fff;cursor:pointer}
        button.secondary{background:#444}button.danger{background:#9b1c1c}header button{background:#fff;color:#1f3347}
        #notice{background:#e6f4ea;border-left:4px solid #1e6b34;padding:.5rem .8rem}
        #error,.field-error{background:#fdecea;border-left:4px solid #a4161a;padding:.5rem .8rem}.field-error{margin:0;font-size:.9rem}
        .secret{font-family:ui-monospace,monospace;background:#fff7d6;padding:.2rem .4rem;word-break:break-all}
        .cards{display:flex;flex-wrap:wrap;gap:1rem;padding:0;list-style:none}.cards li{border:1px solid #bbb;padding:.6rem 1rem;min-width:10rem}
        .cards strong{display:block;font-size:1.6rem}.ok{color:#1e6b34;font-weight:700}.bad{color:#a4161a;font-weight:700}
        .skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;color:#0b4f9c;padding:.3rem}
        svg text{font:12px system-ui,sans-serif;fill:#1b1b1b}figure.chart{margin:.5rem 0}figure.chart svg{max-width:100%;height:auto}
        form.filters{display:flex;flex-wrap:wrap;align-items:end;gap:.4rem .6rem;margin:.5rem 0}form.filters>div{display:grid;gap:.15rem}
        dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
        tr.gap th,tr.gap td{background:#f3f3f3;font-style:italic}
        .letter{border:1px solid #bbb;padding:1rem 1.5rem;margin:1rem 0;max-width:40rem}.letter-link{word-break:break-all}
        @page{size:A4;margin:20mm}
        @media print{header,.no-print,form{display:none}main{max-width:none}main>h1{display:none}
        .letter{border:0;margin:0;padding:0;break-after:page;page-break-after:always}.letter:last-of-type{break-after:auto;page-break-after:auto}}
        """

    /// The templates, parsed: one that does not parse is a test failure (ConsolePartsTests) before it is a page.
    static func makeLibrary() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for source in sources {
            try library.register(String(decoding: source.bytes, as: UTF8.self), named: source.name)
        }
        return library
    }

    static let library: MustacheLibrary = {
        do {
            return try makeLibrary()
        } catch {
            // The templates are part of the program: one that does not parse is a bug the tests catch at once.
            preconditionFailure("a console template does not parse: \(error)")
        }
    }()

    /// A template rendered with its view model; "" for a name that is not one of ``sources`` (a test catches that).
    static func render(_ model: Any, _ template: String) -> String {
        library.render(model, withTemplate: template) ?? ""
    }
}
