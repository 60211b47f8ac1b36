import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianProcess
import CustodianTracing
import Foundation
import Hummingbird

/// `/healthz` (the process answers), `/readyz` (every routed service has a live replica that reaches the
/// database) and `/metrics` (Prometheus text).
struct HealthRoutes: Sendable {
    let rpc: RPCClient
    let services: [String]
    let metrics: GatewayMetrics
    /// Which gateway replica this is, for the tracing figures.
    let instance: String

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/healthz") { _, _ in
            JSONResponse.make(["status": "ok"], status: .ok)
        }
        router.get("/readyz") { _, context in
            await readiness(requestID: context.requestID)
        }
        router.get("/metrics") { _, context in
            async let retention = retentionMetrics(requestID: context.requestID)
            async let twomes = twomesMetrics(requestID: context.requestID)
            async let tracing = tracingMetrics(requestID: context.requestID)
            let text = metrics.render() + (await retention) + (await twomes) + (await tracing)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }

    private func readiness(requestID: String) async -> Response {
        let checks = await self.checks(requestID: requestID)
        let ready = checks.values.allSatisfy { $0 == "ok" }
        let body: JSONValue = [
            "status": .string(ready ? "ready" : "not ready"),
            "services": .object(checks.mapValues { .string($0) }),
        ]
        return JSONResponse.make(body, status: ready ? .ok : .serviceUnavailable)
    }

    /// What each service's retention upkeep has deleted (docs/operations.md, "Retention"), from its database, so
    /// that every gateway replica shows the same figures: one replica's answer is enough.
    func retentionMetrics(requestID: String) async -> String {
        RetentionMetrics.render(
            await fromEachService(requestID: requestID) { service, context in
                (try? await rpc.call(SystemMethods.retention, on: service, context: context)).map { [$0] } ?? []
            })
    }

    /// The spans each process dropped instead of exporting: the gateway's own, and each replica's of each service (a
    /// process keeps its own count; each line names its instance).
    func tracingMetrics(requestID: String) async -> String {
        let own = SystemMethods.TracingTotals(
            service: "gateway", instance: instance, exporting: ProcessTracing.isExporting, spansDropped: SpanDrops.total)
        let replicas = await fromEachService(requestID: requestID) { service, context in
            await rpc.callEachReplica(SystemMethods.tracing, on: service, context: context)
        }
        return TracingMetrics.render([own] + replicas)
    }

    /// What `ask` gets from each service, asked at once, in the services' order; what does not come within a second is
    /// left out of this scrape.
    private func fromEachService<Answer: Sendable>(
        requestID: String, _ ask: @escaping @Sendable (_ service: String, CallContext) async -> [Answer]
    ) async -> [Answer] {
        await withTaskGroup(of: (String, [Answer]).self) { group in
            for service in services {
                group.addTask {
                    (service, await ask(service, CallContext(requestID: requestID, deadline: Date().addingTimeInterval(1))))
                }
            }
            var answers: [(String, [Answer])] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// The Twomes devices reporting and silent (docs/operations.md, "Metrics"), from the devices service's database like
    /// the retention figures; left out when it does not answer within a second.
    func twomesMetrics(requestID: String) async -> String {
        guard services.contains(DevicesMethods.twomesActivity.service) else { return "" }
        let context = CallContext(requestID: requestID, deadline: Date().addingTimeInterval(1))
        guard let activity = try? await rpc.call(DevicesMethods.twomesActivity, context: context) else { return "" }
        return TwomesMetrics.render(activity)
    }

    /// Each service's readiness: `ok`, or what is wrong.
    func checks(requestID: String) async -> [String: String] {
        await withTaskGroup(of: (String, String).self) { group in
            for service in services {
                group.addTask {
                    let context = CallContext(requestID: requestID, deadline: Date().addingTimeInterval(2.5))
                    do {
                        let health = try await rpc.call(SystemMethods.health, on: service, context: context)
                        return (service, health.database == "ok" ? "ok" : "database unreachable")
                    } catch let error as RPCError {
                        return (service, error.message)
                    } catch {
                        return (service, "\(error)")
                    }
                }
            }
            var results: [String: String] = [:]
            for await (service, status) in group { results[service] = status }
            return results
        }
    }
}
