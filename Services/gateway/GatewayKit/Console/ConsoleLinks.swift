import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The API consumers page's view model: the list, and a new consumer's key and secret (shown once).
struct ConsumersView: ConsoleView {
    var consumers: [Consumer]
    var created: Created?
    var csrf = ""

    struct Consumer {
        var name: String
        var consumer_key: String
        var created_at: String
    }

    struct Created {
        var consumer_key: String
        var consumer_secret: String
    }
}

/// The short links page's view model: the list (newest first, searched by the start of a code or a title), a new link
/// with its QR code, and the form with what was typed after a refusal.
struct LinksView: ConsoleView {
    var links: [Link]
    /// The search as typed, kept in its field.
    var q: String?
    /// The next (older) page's address and, on a later page, the first's: the search kept.
    var next: String?
    var first: String?
    var created: Created?
    var entered: Entered?
    var defaultDays = ConsoleRoutes.defaultLinkDays
    var csrf = ""

    struct Link {
        var code_prefix: String
        var title: String
        var created_at: String
        var expires_at: String
        var expired: Bool
    }

    struct Created {
        var url: String
        var validFor: String
        var qr: String
        var qrSize = 240
    }

    struct Entered {
        var app_url: String
        var title: String
        var ttl_days: String
    }
}

extension ConsoleRoutes {
    /// How long a short link is valid when the form leaves it empty.
    static let defaultLinkDays = 14

    func consumers(_ visit: ConsoleVisit, created: CreatedConsumer? = nil, error: ConsoleFailure? = nil) async throws -> Response {
        let list = try await admin.call(RoutesMethods.consumersList, SyntheticQuery(), for: visit)
        let view = ConsumersView(
            consumers: list.consumers.map { .init(name: $0.name, consumer_key: $0.consumer_key, created_at: ConsoleText.display($0.created_at)) },
            created: created.map { .init(consumer_key: $0.consumer_key, consumer_secret: $0.consumer_secret) })
        return ConsolePage(
            title: "API consumers", template: "consumers", view: view, status: error?.status ?? (created == nil ? .ok : .created),
            error: error?.message, section: "consumers"
        ).response(csrf: visit.csrf)
    }

    func createConsumer(_ visit: ConsoleVisit) async throws -> Response {
        try await form {
            let consumer = try await admin.call(RoutesMethods.consumersCreate, CreateConsumerRequest(name: visit.text("name") ?? ""), for: visit)
            return try await consumers(visit, created: consumer)
        } orShow: {
            try await consumers(visit, error: $0)
        }
    }

    func links(
        _ visit: ConsoleVisit, created: LinksView.Created? = nil, entered: LinksView.Entered? = nil, error: ConsoleFailure? = nil
    ) async throws -> Response {
        let query = ConsoleListQuery<ShortLinksQuery>(visit, names: ["q", "before", "limit"])
        let (page, refusal) = try await list(LinksMethods.shortList, query, for: visit)
        let view = LinksView(
            links: (page?.links ?? []).map {
                .init(
                    code_prefix: $0.code_prefix, title: $0.title ?? "", created_at: ConsoleText.display($0.created_at),
                    expires_at: ConsoleText.display($0.expires_at, else: ""), expired: $0.expired)
            },
            q: query.typed["q"], next: query.link("/console/links", "before", page?.next_before), first: query.firstLink("/console/links", "before"),
            created: created, entered: entered)
        let failure = error ?? refusal
        return ConsolePage(
            title: "Short links", template: "links", view: view, status: failure?.status ?? (created == nil ? .ok : .created),
            error: failure?.message,
            section: "links"
        ).response(csrf: visit.csrf)
    }

    func createLink(_ visit: ConsoleVisit) async throws -> Response {
        let entered = LinksView.Entered(
            app_url: visit.text("app_url") ?? "", title: visit.text("title") ?? "", ttl_days: visit.text("ttl_days") ?? "")
        return try await form {
            let days = entered.ttl_days.isEmpty ? Self.defaultLinkDays : Int(entered.ttl_days) ?? 0
            guard (1...366).contains(days) else {
                throw ConsoleFailure(
                    status: .unprocessableContent, message: "Valid for: “\(entered.ttl_days)” is not a whole number of days from 1 to 366.")
            }
            let input = ShortLinkInput(appURL: entered.app_url, title: visit.text("title"), ttlSeconds: days * 86_400)
            let link = try await admin.call(LinksMethods.shortHttpCreate, AdminShortLinkRequest(link: input), for: visit)
            let qr = try await admin.raw(LinksMethods.qrHttp, Self.qrCode(of: link.url), for: visit)
            return try await links(
                visit, created: .init(url: link.url, validFor: ConsoleText.counted(days, "day"), qr: ConsoleAdmin.dataURL(qr)))
        } orShow: { failure in
            try await links(visit, entered: entered, error: failure)
        }
    }
}
