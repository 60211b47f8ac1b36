import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
import CustodianSecurity

/// Activation links, QR code images, and the self-hosted short-link resolver (docs/links.md).
public enum LinksService {
    public static let definition = ServiceDefinition(
        name: "links", migrations: LinksMigrations.all, upkeep: [ShortLinks.expiredRowsUpkeep],
        // Any link, expired or not, once older than configured; expired ones go a week after they expire regardless.
        retention: [Retention("short_links", table: "links.short_links", key: "code", timeColumn: "created_at")],
        sealed: [ShortLinks.sealed]
    ) {
        environment in
        let links = try ActivationLinks(configuration: environment.configuration.all)
        let shortLinks = ShortLinks(
            database: environment.database, settings: try ShortLinkSettings(configuration: environment.configuration),
            sealer: try Sealer(configuration: environment.configuration))
        var methods = RPCMethods()
        methods.register(LinksMethods.activationMint) { input, context in
            guard input.kind == "account" else {
                throw RPCError.badRequest("unknown activation link kind '\(input.kind)'")
            }
            guard !input.token.isEmpty, input.token.count <= 1024 else {
                throw RPCError.badRequest("an activation token must have 1 to 1024 characters")
            }
            let template = input.template ?? ActivationLinks.defaultTemplateName
            let url = try links.url(template: template, token: input.token)
            guard links.shortLinkTemplates.contains(template) else { return ActivationLink(url: url) }
            // This platform's own link, which lasts as long as the token it carries.
            let short = try await shortLinks.create(
                ShortLinkInput(appURL: url, title: "Activate your account", ttlSeconds: input.lifetimeSeconds), names: .rpc, logger: context.logger)
            return ActivationLink(url: short.url, code: short.code)
        }

        // QR codes: for other services, and for admins through `GET /admin/v1/qr`.
        methods.register(LinksMethods.qrRender, work: .cpuHeavy) { input, _ in
            try QRImages.render(input)
        }
        methods.register(LinksMethods.qrHttp, requires: [.admin], work: .cpuHeavy) { input, context in
            try QRImages.render(input.render)
        }

        // Printable label sheets, for the device labels `devices` serves to admins.
        methods.register(LinksMethods.labelsSheet, work: .cpuHeavy) { input, _ in
            try LabelSheet.render(input)
        }

        // Short links: for other services, for admins through `POST /admin/v1/links`, and `GET /l/{code}` for everyone.
        methods.register(LinksMethods.shortCreate) { input, context in
            try await shortLinks.create(input, names: .rpc, logger: context.logger)
        }
        methods.register(LinksMethods.shortHttpCreate, requires: [.admin]) { input, context in
            try await shortLinks.create(input.link, names: .admin, logger: context.logger)
        }
        let directory = ShortLinkDirectory(database: environment.database)
        methods.register(LinksMethods.shortList, requires: [.admin]) { input, context in
            try await directory.list(input, context: context)
        }
        methods.register(LinksMethods.shortResolve) { input, context in
            try await shortLinks.resolve(input, logger: context.logger)
        }
        methods.register(LinksMethods.shortRevoke, requires: [.admin]) { input, context in
            try await shortLinks.revoke(input, context: context)
        }
        return methods
    }
}
