/// The API style of a path no route matched, so that even a 404 looks like the API the client expects: the style of
/// the route that shares the most leading segments with the path (a `{parameter}` segment matches any), the first
/// such route of the table on a tie; `admin` when no route shares one. Taken from the route table, so that a new
/// route's API answers its own unknown paths without a second list to keep.
struct UnmatchedPathStyles: Sendable {
    private let routes: [(segments: [Substring?], style: APIStyle)]

    init(routes: [Route]) {
        self.routes = routes.map { route in
            (route.path.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }, route.style)
        }
    }

    func style(for path: String) -> APIStyle {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var best: (shared: Int, style: APIStyle) = (0, .admin)
        for route in routes {
            let shared = zip(route.segments, segments).prefix { pattern, segment in pattern == nil || pattern == segment }.count
            if shared > best.shared { best = (shared, route.style) }
        }
        return best.style
    }
}
