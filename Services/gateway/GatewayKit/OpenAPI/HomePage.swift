/// `GET /`: what Custodian is and where each kind of user goes next.
enum HomePage {
    static let page = HTMLPage(
        title: "Custodian",
        body: """
            <h1>Custodian</h1>
            <p>A backend for research and personal-data mobile and IoT apps: the server side of the OwnYourData data vault,
            the OpenSense sensing framework, a geotagging route store, the LEMON COVID-19 tracing app and the Twomes
            device-provisioning backend, as one platform with a researcher admin API.</p>
            <h2>Where to go next</h2>
            <ul>
            <li><a href="/docs">The API reference</a>: every route, its authentication, parameters, bodies, responses and examples.</li>
            <li><a href="/openapi.json">/openapi.json</a>: the same as an OpenAPI 3.1 document, for code generators and testing tools.</li>
            <li>App and firmware developers: <a href="/docs#tag-twomes">Twomes</a>, <a href="/docs#tag-opensense">OpenSense</a>,
            <a href="/docs#tag-vault">the data vault</a>, <a href="/docs#tag-geotag">geotag</a>, <a href="/docs#tag-lemon">LEMON</a>.
            Each API keeps the field names, status codes and errors of the system it replaces.</li>
            <li>Researchers: <a href="/console">the console</a>, pages for accounts, devices, exports and the rest, and
            <a href="/docs#tag-admin">the admin API</a> under <code>/admin/v1/</code>; both with an admin token.</li>
            <li>Operators: <a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>, <a href="/metrics">/metrics</a>.</li>
            </ul>
            """)
}
