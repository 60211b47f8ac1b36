import Testing
@testable import GatewayKit

@Suite("The API style of unknown paths")
struct UnmatchedPathStyleTests {
    static let cases: [(String, APIStyle)] = [
        ("/admin/v1/nothing", .admin), ("/admin/v1/statistics/nothing/here", .admin),
        ("/api/v1/nothing", .lemon), ("/api/v1/devices/x/y/z", .lemon),
        ("/api/repos/1/nothing/else", .oyd), ("/api/nothing", .oyd), ("/oauth/nothing", .oyd),
        ("/register/x", .opensense), ("/config/x", .opensense), ("/upload/x", .opensense),
        ("/route/x/y/z", .geotag), ("/route/lookup/x/y", .geotag),
        ("/account/x/y", .twomes), ("/device/x", .twomes), ("/device_type/TWOMES-000000/nothing", .twomes),
        ("/", .admin), ("/nothing", .admin), ("/l/abc/def", .admin), ("//admin//v1//x", .admin),
    ]

    @Test(arguments: cases)
    func anUnknownPathTakesTheStyleOfTheRoutesItSharesMostWith(path: String, style: APIStyle) {
        #expect(UnmatchedPathStyles(routes: RouteTable.all).style(for: path) == style)
    }

    @Test func aNewRoutesPrefixAnswersInItsStyle() {
        let routes =
            RouteTable.all + [Route(.get, "/sensors/{id}/readings", service: "devices", rpc: "devices.sensors.read", auth: .none, style: .opensense)]
        #expect(UnmatchedPathStyles(routes: routes).style(for: "/sensors/7/nothing") == .opensense)
        #expect(UnmatchedPathStyles(routes: RouteTable.all).style(for: "/sensors/7/nothing") == .admin)
    }
}
