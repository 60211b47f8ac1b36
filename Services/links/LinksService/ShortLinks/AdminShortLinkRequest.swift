import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `POST /admin/v1/links`: the body in the admin API's snake_case, as a ``ShortLinkInput``.
struct AdminShortLinkRequest: Decodable {
    var app_url: String
    var title: String?
    var ttl_seconds: Int?
    var android_store_url: String?
    var ios_store_url: String?

    static func input(from http: HTTPInput) throws -> ShortLinkInput {
        guard case .object = http.body else {
            throw RPCError.badRequest("The body must be a JSON object such as {\"app_url\": \"https://…\"}", reason: "malformed_body")
        }
        let request: AdminShortLinkRequest
        do {
            request = try JSONDecoder().decode(AdminShortLinkRequest.self, from: JSONEncoder().encode(http.body))
        } catch let error as DecodingError {
            throw RPCError.badRequest(describe(error, in: http.body), reason: "invalid_body")
        }
        return ShortLinkInput(appURL: request.app_url, title: request.title, ttlSeconds: request.ttl_seconds,
                              androidStoreURL: request.android_store_url, iosStoreURL: request.ios_store_url)
    }
}
