import Mustache

/// The console's look and pages, as Mustache templates compiled into the gateway (no files to deploy next to it).
/// Every value is HTML-escaped by `{{…}}`; only the layout's `{{{content}}}` (a rendered template) and the server's
/// own SVG chart are inserted as they are.
enum ConsoleTemplates {
    /// What the navigation lists: `section` is the ``ConsolePage/section`` of the pages under it.
    static let navigation: [(id: String, href: String, label: String, section: String)] = [
        ("nav-overview", "/console", "Overview", "overview"),
        ("nav-accounts", "/console/twomes/accounts", "Twomes accounts", "accounts"),
        ("nav-devices", "/console/twomes/devices", "Devices", "devices"),
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
        svg text{font:12px system-ui,sans-serif;fill:#1b1b1b}
        @media print{header,.no-print,form{display:none}main{max-width:none}}
        """

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in templates.merging(administrationTemplates, uniquingKeysWith: { first, _ in first }).merging(
            ["erasure": erasureTemplate], uniquingKeysWith: { first, _ in first })
        {
            do {
                try library.register(text, named: name)
            } catch {
                // The templates are part of the program: one that does not parse is a bug the tests catch at once.
                preconditionFailure("console template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    static let templates: [String: String] = [
        "layout": """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Custodian console</title>
        <style>{{{stylesheet}}}</style>
        </head>
        <body>
        <a class="skip" href="#main">Skip to the page's content</a>
        {{#loggedIn}}<header><nav aria-label="Console">
        <ul>{{#navigation}}<li><a id="{{id}}" href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/navigation}}</ul>
        {{#identity}}<p id="identity">{{label}} <span class="hint-light">({{scope}})</span></p>{{/identity}}
        <form id="logout-form" method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{csrf}}"><button id="logout" type="submit">Log out</button></form>
        </nav></header>{{/loggedIn}}
        <main id="main">
        <h1>{{title}}</h1>
        {{#notice}}<p id="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p id="error" role="alert">{{error}}</p>{{/error}}
        {{{content}}}
        </main>
        </body>
        </html>

        """,
        "message": """
        <p>{{message}}</p>
        <p><a href="{{back}}">{{backLabel}}</a></p>
        """,
        "login": """
        <p>The console of this Custodian platform, for researchers and operators. Log in with an admin token
        (<code>custodian up</code> keeps one in <code>.custodian/admin-token</code>; <code>custodian admin create-token</code> makes more).</p>
        <form class="stack" method="post" action="/console/login">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus></div>
        <div><button id="login" type="submit">Log in</button></div>
        </form>
        <p class="hint">The session lasts eight hours, or until you log out.</p>
        """,
        "overview": """
        <h2>Counts</h2>
        <ul class="cards">{{#counts}}<li><strong>{{value}}</strong><a href="{{href}}">{{label}}</a></li>{{/counts}}</ul>
        <h2>Services</h2>
        <table id="health"><caption class="skip">Readiness of each service</caption>
        <thead><tr><th scope="col">Service</th><th scope="col">Status</th></tr></thead>
        <tbody>{{#health}}<tr><td>{{service}}</td><td>{{#ok}}<span class="ok">ready</span>{{/ok}}{{^ok}}<span class="bad">{{status}}</span>{{/ok}}</td></tr>{{/health}}</tbody>
        </table>
        <h2>The last hour</h2>
        <table id="traffic"><thead><tr><th scope="col">Requests</th><th scope="col">Client errors (4xx)</th><th scope="col">Server errors (5xx)</th></tr></thead>
        <tbody><tr><td class="number">{{traffic.requests}}</td><td class="number">{{traffic.clientErrors}}</td><td class="number">{{traffic.serverErrors}}</td></tr></tbody></table>
        <p class="hint">As this gateway saw them since {{traffic.since}} (UTC); with several gateways, each counts its own. All figures: <a href="/metrics">/metrics</a>.</p>
        """,
        "accounts": """
        <h2>New account</h2>
        <p>Makes an account with a new pseudonym and its activation link, to hand to the participant (as a QR code or a link).</p>
        <form method="post" action="/console/twomes/accounts"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="create-account" type="submit">Create account</button></form>
        <h2>Accounts</h2>
        <table id="accounts"><thead><tr><th scope="col">Pseudonym</th><th scope="col">Created</th><th scope="col">Activated</th><th scope="col">Devices (last seen)</th>{{#owner}}<th scope="col">Who did what</th>{{/owner}}</tr></thead>
        <tbody>{{#accounts}}<tr data-pseudonym="{{pseudonym}}"><td>{{pseudonym}}</td><td>{{created_on}}</td><td>{{activated}}</td>
        <td>{{#devices}}{{name}} ({{device_type}}, {{seen}})<br>{{/devices}}{{^devices}}none{{/devices}}</td>
        {{#owner}}<td><a class="history" href="/console/audit?target={{pseudonym}}">Audit history</a></td>{{/owner}}</tr>{{/accounts}}
        {{^accounts}}<tr><td colspan="4">No accounts yet.</td></tr>{{/accounts}}</tbody></table>
        {{#next}}<p><a href="/console/twomes/accounts?after={{next}}">Next accounts</a></p>{{/next}}
        """,
        "account-created": """
        <p>Account <strong id="account-pseudonym">{{pseudonym}}</strong> is ready. Give the participant this QR code or link:
        the app activates the account with it. It works once, and only until it expires.</p>
        <p><img id="activation-qr" src="{{qr}}" alt="QR code of the activation link" width="{{qrSize}}" height="{{qrSize}}"></p>
        <p><a id="activation-link" href="{{link}}">{{link}}</a></p>
        <p class="hint no-print">The link is shown this once: Custodian keeps only what it needs to check it.</p>
        <p class="no-print"><a href="/console/twomes/accounts">Back to the accounts</a></p>
        """,
        "devices": """
        <h2>Register a device</h2>
        <form class="stack" method="post" action="/console/twomes/devices"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="device-name">Device name</label><input id="device-name" name="name" required value="{{form.name}}" aria-describedby="device-name-hint">
        <span class="hint" id="device-name-hint">As printed on the device, e.g. TWOMES-0A1B2C.</span></div>
        <div><label for="device-type">Device type</label><select id="device-type" name="device_type">
        {{#types}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{display_name}} ({{name}})</option>{{/types}}</select></div>
        <div><label for="activation-token">Activation token (optional)</label><input id="activation-token" name="activation_token" value="{{form.activation_token}}" aria-describedby="activation-token-hint">
        <span class="hint" id="activation-token-hint">The secret the device's firmware holds, 8 characters or more; left empty, the server makes one.</span></div>
        <div><button id="register-device" type="submit">Register device</button></div>
        </form>
        <h2>Devices</h2>
        <form method="post" action="/console/twomes/labels"><input type="hidden" name="csrf" value="{{csrf}}">
        <table id="devices"><thead><tr><th scope="col">Label</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Account</th>
        <th scope="col">Activated</th><th scope="col">Last seen</th><th scope="col">Label printed</th></tr></thead>
        <tbody>{{#devices}}<tr data-device="{{name}}"><td><input type="checkbox" name="name" value="{{name}}" id="select-{{name}}" aria-label="Select {{name}}"></td>
        <td>{{name}}</td><td>{{device_type}}</td><td>{{account}}</td><td>{{activated}}</td><td>{{seen}}</td><td class="label-printed">{{printed}}</td></tr>{{/devices}}
        {{^devices}}<tr><td colspan="7">No devices yet.</td></tr>{{/devices}}</tbody></table>
        {{#next}}<p><a href="/console/twomes/devices?after={{next}}">Next devices</a></p>{{/next}}
        <p><label for="transport">Provisioning over</label> <select id="transport" name="transport"><option value="ble">Bluetooth LE</option><option value="softap">Wi-Fi access point</option></select>
        <button id="print-selected" type="submit" name="unprinted" value="false">Label sheet of the selected devices</button>
        <button id="print-unprinted" class="secondary" type="submit" name="unprinted" value="true">Label sheet of every device not printed yet</button></p>
        </form>
        """,
        "export": """
        <p>Downloads the Twomes measurements that match, as CSV or NDJSON. Leave a field empty to not filter by it.</p>
        <form class="stack" method="get" action="/console/twomes/export/download">
        <div><label for="export-format">Format</label><select id="export-format" name="format"><option value="csv">CSV</option><option value="ndjson">NDJSON</option></select></div>
        <div><label for="export-pseudonym">Pseudonym</label><input id="export-pseudonym" name="pseudonym" inputmode="numeric"></div>
        <div><label for="export-device">Device name</label><input id="export-device" name="device"></div>
        <div><label for="export-property">Property</label><input id="export-property" name="property" aria-describedby="export-property-hint">
        <span class="hint" id="export-property-hint">e.g. roomTemp; the device types' properties are listed below.</span></div>
        <div><label for="export-from">From</label><input id="export-from" name="from" aria-describedby="export-time-hint"></div>
        <div><label for="export-to">Until (not including)</label><input id="export-to" name="to" aria-describedby="export-time-hint">
        <span class="hint" id="export-time-hint">ISO 8601 with an offset (2026-11-01T00:00:00Z) or unix seconds.</span></div>
        <div><button id="download" type="submit">Download</button></div>
        </form>
        <h2>Properties by device type</h2>
        <table id="properties"><thead><tr><th scope="col">Device type</th><th scope="col">Properties</th></tr></thead>
        <tbody>{{#types}}<tr><td>{{display_name}} ({{name}})</td><td>{{properties}}</td></tr>{{/types}}</tbody></table>
        """,
        "opensense": """
        <h2>Devices</h2>
        <table id="opensense-devices"><thead><tr><th scope="col">Device</th><th scope="col">Registered</th><th scope="col" class="number">Uploads</th>
        <th scope="col" class="number">Batches</th><th scope="col">Last upload</th></tr></thead>
        <tbody>{{#devices}}<tr><td>{{device_id}}</td><td>{{registered_at}}</td><td class="number">{{uploads}}</td><td class="number">{{batches}}</td><td>{{last}}</td></tr>{{/devices}}
        {{^devices}}<tr><td colspan="5">No devices have registered yet.</td></tr>{{/devices}}</tbody></table>
        <h2>Batch export</h2>
        <form method="get" action="/console/opensense/batches"><label for="batches-format">Format</label>
        <select id="batches-format" name="format"><option value="csv">CSV</option><option value="ndjson">NDJSON</option></select>
        <button id="download-batches" type="submit">Download batches</button></form>
        <h2>Configuration</h2>
        <p>What phones get from <code>GET /config</code>{{#version}} (now version {{version}}){{/version}}. Saving publishes it as the next version.</p>
        <form class="stack" method="post" action="/console/opensense/config" novalidate><input type="hidden" name="csrf" value="{{csrf}}">
        {{#fields}}<div><label for="config-{{key}}">{{label}}</label>
        {{#checkbox}}<input type="hidden" name="{{key}}" value="false"><input id="config-{{key}}" name="{{key}}" type="checkbox" value="true"{{#checked}} checked{{/checked}}{{#error}} aria-invalid="true" aria-describedby="config-{{key}}-error"{{/error}}>{{/checkbox}}
        {{#textarea}}<textarea id="config-{{key}}" name="{{key}}" rows="10" cols="70"{{#error}} aria-invalid="true" aria-describedby="config-{{key}}-error"{{/error}}>{{value}}</textarea>{{/textarea}}
        {{#text}}<input id="config-{{key}}" name="{{key}}" value="{{value}}"{{#error}} aria-invalid="true" aria-describedby="config-{{key}}-error"{{/error}}>{{/text}}
        {{#error}}<p class="field-error" id="config-{{key}}-error">{{error}}</p>{{/error}}</div>{{/fields}}
        <div><button id="save-config" type="submit">Publish configuration</button></div>
        </form>
        """,
        "vault": """
        <p>The OwnYourData data vault's users, their modules (apps with their own credentials), repos and permissions.
        Passwords and module secrets are shown only when they are made.</p>
        {{#created}}<div id="created"><h2>{{created.heading}}</h2><dl>{{#created.fields}}<dt>{{name}}</dt><dd class="{{#secret}}secret{{/secret}}">{{value}}</dd>{{/created.fields}}</dl>
        {{#created.qr}}<p><img id="module-qr" src="{{created.qr}}" alt="QR code for logging the module in" width="{{created.qrSize}}" height="{{created.qrSize}}"></p>{{/created.qr}}</div>{{/created}}
        <h2>Users</h2>
        <table id="vault-users"><thead><tr><th scope="col">User</th><th scope="col">Repos (items)</th><th scope="col">Modules, and what each may do</th></tr></thead>
        <tbody>{{#users}}<tr data-user="{{id}}"><td>{{id}}</td><td>{{#repos}}{{identifier}} ({{items}})<br>{{/repos}}{{^repos}}none{{/repos}}</td>
        <td>{{#modules}}<strong>{{name}}</strong> (module {{id}}): {{#permissions}}{{repo}} {{access}}; {{/permissions}}{{^permissions}}no access yet; {{/permissions}}<a href="/console/vault/module-qr?module_id={{id}}">login QR code</a><br>{{/modules}}{{^modules}}none{{/modules}}</td></tr>{{/users}}
        {{^users}}<tr><td colspan="3">No users yet.</td></tr>{{/users}}</tbody></table>
        {{#next}}<p><a href="/console/vault?after={{next}}">Next users</a></p>{{/next}}
        <h2>New user</h2>
        <form class="stack" method="post" action="/console/vault/users"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="user-email">Email</label><input id="user-email" name="email" type="email" required></div>
        <div><label for="user-name">Name</label><input id="user-name" name="name" required></div>
        <div><label for="user-password">Password</label><input id="user-password" name="password" type="password" autocomplete="new-password" required></div>
        <div><button id="create-user" type="submit">Create user</button></div></form>
        <h2>New module</h2>
        <form class="stack" method="post" action="/console/vault/modules"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="module-user">User id</label><input id="module-user" name="user_id" inputmode="numeric" required></div>
        <div><label for="module-name">Module name</label><input id="module-name" name="name" required></div>
        <div><label for="module-description">Description</label><input id="module-description" name="description"></div>
        <div><label for="module-url">The module's URL</label><input id="module-url" name="url" type="url" required></div>
        <div><button id="create-module" type="submit">Create module</button></div></form>
        <h2>New repo</h2>
        <form class="stack" method="post" action="/console/vault/repos"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="repo-user">User id</label><input id="repo-user" name="user_id" inputmode="numeric" required></div>
        <div><label for="repo-identifier">Repo identifier</label><input id="repo-identifier" name="identifier" required></div>
        <div><button id="create-repo" type="submit">Create repo</button></div></form>
        <h2>Grant a module a repo</h2>
        <form class="stack" method="post" action="/console/vault/permissions"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="grant-module">Module id</label><input id="grant-module" name="module_id" required></div>
        <div><label for="grant-repo">Repo identifier</label><input id="grant-repo" name="repo" required></div>
        <div><input type="hidden" name="read" value="false"><input id="grant-read" name="read" type="checkbox" value="true"> <label for="grant-read">may read</label></div>
        <div><input type="hidden" name="write" value="false"><input id="grant-write" name="write" type="checkbox" value="true"> <label for="grant-write">may write</label></div>
        <div><button id="grant" type="submit">Grant</button></div></form>
        <h2>A module's login QR code</h2>
        <form class="stack" method="get" action="/console/vault/module-qr">
        <div><label for="qr-module">Module id</label><input id="qr-module" name="module_id" required></div>
        <div><button id="module-qr-show" type="submit">Show QR code</button></div></form>
        """,
        "consumers": """
        {{#created}}<div id="created"><h2>New consumer</h2><p>The secret is shown this once: copy it into the app now.</p>
        <dl><dt>Consumer key</dt><dd id="consumer-key" class="secret">{{created.consumer_key}}</dd>
        <dt>Consumer secret</dt><dd id="consumer-secret" class="secret">{{created.consumer_secret}}</dd></dl></div>{{/created}}
        <h2>New API consumer</h2>
        <p>An app or tool that signs its requests to the geotag route store.</p>
        <form class="stack" method="post" action="/console/consumers"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="consumer-name">Name</label><input id="consumer-name" name="name" required maxlength="100"></div>
        <div><button id="create-consumer" type="submit">Create consumer</button></div></form>
        <h2>Consumers</h2>
        <table id="consumers"><thead><tr><th scope="col">Name</th><th scope="col">Consumer key</th><th scope="col">Created</th></tr></thead>
        <tbody>{{#consumers}}<tr><td>{{name}}</td><td><code>{{consumer_key}}</code></td><td>{{created_at}}</td></tr>{{/consumers}}
        {{^consumers}}<tr><td colspan="3">No consumers yet.</td></tr>{{/consumers}}</tbody></table>
        """,
        "links": """
        {{#created}}<div id="created"><h2>New short link</h2>
        <p><a id="short-link" href="{{created.url}}">{{created.url}}</a> (valid for {{created.days}} days)</p>
        <p><img id="short-link-qr" src="{{created.qr}}" alt="QR code of the short link" width="{{created.qrSize}}" height="{{created.qrSize}}"></p></div>{{/created}}
        <p>A short link on this platform (<code>/l/…</code>) that sends phones to an app URL and shows other browsers a page with its QR code.
        The app URL is kept sealed; short links are deleted a week after they expire.</p>
        <h2>New short link</h2>
        <form class="stack" method="post" action="/console/links"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="link-app-url">App URL</label><input id="link-app-url" name="app_url" required placeholder="warmtewachter://account/…"></div>
        <div><label for="link-title">Title</label><input id="link-title" name="title" maxlength="200"></div>
        <div><label for="link-ttl">Valid for (days)</label><input id="link-ttl" name="ttl_days" inputmode="numeric" value="14"></div>
        <div><button id="create-link" type="submit">Create short link</button></div></form>
        <h2>Short links</h2>
        <p class="hint">Newest first. Only the start of each code is shown: a link is handed out once, when it is made.</p>
        <table id="short-links"><thead><tr><th scope="col">Code</th><th scope="col">Title</th><th scope="col">Made</th><th scope="col">Expires</th><th scope="col">State</th></tr></thead>
        <tbody>{{#links}}<tr><td><code>{{code_prefix}}</code></td><td>{{title}}</td><td>{{created_at}}</td><td>{{expires_at}}</td><td>{{#expired}}expired{{/expired}}{{^expired}}active{{/expired}}</td></tr>{{/links}}
        {{^links}}<tr><td colspan="5">No short links yet.</td></tr>{{/links}}</tbody></table>
        {{#next}}<p><a href="/console/links?before={{next}}">Older links</a></p>{{/next}}
        """,
        "lemon": """
        <h2>Submissions by ISO week</h2>
        {{{chart}}}
        <h2>By status</h2>
        <table id="by-status"><thead><tr><th scope="col">Status</th><th scope="col" class="number">Submissions</th></tr></thead>
        <tbody>{{#statuses}}<tr><td>{{name}}</td><td class="number">{{count}}</td></tr>{{/statuses}}{{^statuses}}<tr><td colspan="2">No submissions yet.</td></tr>{{/statuses}}</tbody></table>
        <h2>By country</h2>
        <table id="by-country"><thead><tr><th scope="col">Country</th><th scope="col" class="number">Submissions</th></tr></thead>
        <tbody>{{#countries}}<tr><td>{{name}}</td><td class="number">{{count}}</td></tr>{{/countries}}{{^countries}}<tr><td colspan="2">No submissions yet.</td></tr>{{/countries}}</tbody></table>
        <p><a href="/console/lemon/submissions?format=csv" id="download-submissions">Download the submissions (CSV, without device identifiers)</a></p>
        <h2>Import COVID figures</h2>
        <p>A CSV file of daily figures per country (<code>country,date,confirmed,deaths,recovered</code>, docs/admin.md), up to 6 MiB.
        The browser shows the upload's progress, the next page the import's; every line is checked first, then all are stored in one transaction, or none.</p>
        <form class="stack" method="post" action="/console/lemon/covid" enctype="multipart/form-data"><input type="hidden" name="csrf" value="{{csrf}}">
        <div><label for="covid-file">CSV file</label><input id="covid-file" name="file" type="file" accept=".csv,text/csv" required></div>
        <div><label for="covid-source">Source</label><input id="covid-source" name="source" required></div>
        <div><label for="covid-source-url">Source URL</label><input id="covid-source-url" name="source_url" type="url"></div>
        <div><button id="import-covid" type="submit">Import</button></div></form>
        """,
        // Streamed: the first part while the rows are checked and stored, the outcome when they are (ConsoleRoutes.importCovid).
        "covid-import": """
        <p id="progress" role="status">Importing {{rows}} rows{{#source}} from {{source}}{{/source}}: every line is checked first, then all are stored
        in one transaction. This page goes on when they are stored (a few seconds for 100,000 rows).</p>
        <!--outcome-->
        """,
        "covid-outcome": """
        {{#imported}}<div id="imported" role="status"><p>Imported {{imported.rows}} rows ({{imported.inserted}} new, {{imported.updated}} updated) for {{imported.countries}}, {{imported.first_day}} to {{imported.last_day}}.</p></div>{{/imported}}
        {{#error}}<p id="error" role="alert">Nothing was imported: {{error}}</p>{{/error}}
        <p><a href="/console/lemon">Back to LEMON</a></p>
        """,
    ]
}
