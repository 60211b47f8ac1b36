import CustodianContracts
import CustodianHTTP
import Foundation
import Hummingbird

/// The overview's view model: how many of each there are, each service's readiness, the last hour's traffic.
struct OverviewView: ConsoleView {
    var counts: [Count]
    var health: [Health]
    var traffic: Traffic
    var csrf = ""

    struct Count {
        var label: String
        var value: String
        var href: String
    }

    struct Health {
        var service: String
        var status: String
        var ok: Bool
    }

    struct Traffic {
        var requests: Int
        var clientErrors: Int
        var serverErrors: Int
        var since: String
    }
}

extension ConsoleRoutes {
    func overview(_ visit: ConsoleVisit) async throws -> Response {
        async let checks = health.checks(requestID: visit.context.requestID)
        async let counts = self.counts(visit)
        let traffic = metrics.recent.lastHour()
        let view = OverviewView(
            counts: await counts,
            health: await checks.sorted { $0.key < $1.key }.map { .init(service: $0.key, status: $0.value, ok: $0.value == "ok") },
            traffic: .init(
                requests: traffic.requests, clientErrors: traffic.clientErrors, serverErrors: traffic.serverErrors,
                since: ConsoleText.time(traffic.since)))
        return ConsolePage(title: "Overview", template: "overview", view: view, section: "overview").response(csrf: visit.csrf)
    }

    /// How many of each there are, by the first page of each list (a count beyond it shows as "1000+"); a service
    /// that does not answer shows "?" rather than failing the page.
    private func counts(_ visit: ConsoleVisit) async -> [OverviewView.Count] {
        func count(_ items: Int, more: Bool) -> String { more ? "\(items)+" : String(items) }
        async let accounts = try? await admin.call(DevicesMethods.accountsList, AccountsQuery(limit: 1000), for: visit)
        async let devices = try? await admin.call(DevicesMethods.devicesList, DevicesQuery(limit: 1000), for: visit)
        async let silent = try? await admin.call(
            DevicesMethods.devicesList, DevicesQuery(limit: 1000, silentFor: SilentDuration.seconds(Self.defaultSilentThreshold)), for: visit)
        async let openSense = try? await admin.call(DevicesMethods.opensenseDevices, OpenSenseDevicesQuery(limit: 1000), for: visit)
        async let vaultUsers = try? await admin.call(VaultMethods.adminUsers, VaultUsersQuery(limit: 1000), for: visit)
        async let consumers = try? await admin.call(RoutesMethods.consumersList, SyntheticQuery(), for: visit)
        async let submissions = try? await admin.call(StatisticsMethods.adminSubmissionsCounts, SubmissionRange(), for: visit)
        return [
            .init(
                label: "Twomes accounts", value: await accounts.map { count($0.accounts.count, more: $0.next_after != nil) } ?? "?",
                href: "/console/twomes/accounts"),
            .init(
                label: "Twomes devices", value: await devices.map { count($0.devices.count, more: $0.next_after != nil) } ?? "?",
                href: "/console/twomes/devices"),
            .init(
                label: "Silent devices (2 h)", value: await silent.map { count($0.devices.count, more: $0.next_after != nil) } ?? "?",
                href: "/console/twomes/silent"),
            .init(
                label: "OpenSense devices", value: await openSense.map { count($0.devices.count, more: $0.next_after != nil) } ?? "?",
                href: "/console/opensense"),
            .init(
                label: "Vault users", value: await vaultUsers.map { count($0.users.count, more: $0.next_after != nil) } ?? "?",
                href: "/console/vault"),
            .init(label: "API consumers", value: await consumers.map { String($0.consumers.count) } ?? "?", href: "/console/consumers"),
            .init(
                label: "LEMON submissions", value: await submissions.map { String($0.counts.reduce(0) { $0 + $1.count }) } ?? "?",
                href: "/console/lemon"),
        ]
    }
}
