import Hummingbird

/// `/` (what this is), `/docs` (the API reference) and `/openapi.json` (the description they are made from): the
/// gateway's own pages, answered without a service or a credential, each made once.
struct DocumentationRoutes: Sendable {
    func add(to router: Router<GatewayRequestContext>) {
        let home = HomePage.page.response
        let reference = APIReferencePage(document: OpenAPIDocument.value).page.response
        let document = ByteBuffer(bytes: OpenAPIDocument.bytes)
        router.get("/") { _, _ in home }
        router.get("/docs") { _, _ in reference }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: document))
        }
    }
}
