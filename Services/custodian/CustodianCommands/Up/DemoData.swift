import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A copy of OwnYourData's test environment (docs/vault.md, "Demo data"), loaded through the admin API on a new
/// data directory: the two users, the Location module for User A and its `oyd.location` repo; and the LEMON
/// statistics' sample COVID-19 figures.
struct DemoData {
    let client: HTTPClient
    let baseURL: String
    let adminToken: String

    func load() async throws -> String {
        let userA = try await post("/admin/v1/vault/users", #"{"email":"user_a@ownyourdata.eu","name":"User A","password":"user_a"}"#)
        _ = try await post(
            "/admin/v1/vault/users", #"{"email":"user_b@ownyourdata.eu","name":"Very long User Name with many words","password":"Q/wdfbv67"}"#)
        guard let userID = userA["id"] as? Int else { throw DemoError("the demo user was not created") }
        let module = try await post(
            "/admin/v1/vault/users/\(userID)/modules",
            #"{"name":"Location","description":"Collect and show your location history","url":"https://location.oydapp.eu"}"#)
        guard let moduleID = module["id"] as? Int else { throw DemoError("the demo module was not installed") }
        _ = try await post("/admin/v1/vault/modules/\(moduleID)/permissions", #"{"repo":"oyd.location","read":true,"write":true}"#)
        // The LEMON statistics' sample figures (Deploy/demo/covid-sample.csv).
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "source", value: CovidSample.source), URLQueryItem(name: "source_url", value: CovidSample.sourceURL)]
        let figures = try await post(
            "/admin/v1/statistics/covid/imports?\(query.percentEncodedQuery ?? "")", CovidSample.csv + "\n", contentType: "text/csv")
        let countries = (figures["countries"] as? [String])?.joined(separator: ", ") ?? "?"
        return "users user_a@ownyourdata.eu / user_a and user_b@ownyourdata.eu / Q/wdfbv67; Location module; repo oyd.location; "
            + "COVID-19 sample figures for \(countries)"
    }

    private func post(_ path: String, _ json: String, contentType: String = "application/json") async throws -> [String: Any] {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw DemoError("\(path) answered \(response.status.code): \(String(buffer: body))")
        }
        return (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]) ?? [:]
    }
}

struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
